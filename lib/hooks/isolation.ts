/**
 * §7: each interceptor gets its own copy of the context, and an in-place
 * mutation MUST NOT affect enforcement, identity, or later interceptors.
 *
 * A deep copy per interceptor costs about one JSON.stringify of the context
 * each time, so instead each interceptor gets a lazy copy-on-write view: reads
 * fall through to the shared, never-mutated context; the first write to a
 * node shallow-copies that node into the view's private state. Freezing is not
 * an option: an interceptor that mutates its context and returns allow must
 * still yield allow (CTK `mutate` fault).
 *
 * The proxies wrap empty stand-ins rather than the real nodes so that proxy
 * invariants never tie the view to the shared node's (possibly frozen) state;
 * the stand-in carries the node's state under a symbol, so one handler serves
 * every proxy. Limitation: `structuredClone` refuses proxies;
 * `JSON.parse(JSON.stringify(v))` or `toPlain(v)` copy a view.
 */
const VIEW = Symbol('agent-hooks.view');
const STATE = Symbol('agent-hooks.view-state');

type Node = Record<PropertyKey, unknown>;

interface View {
  /** One proxy per shared node, so aliases (target and the field it mirrors) stay one object. */
  proxies: Map<object, object> | null;
}

interface NodeState {
  readonly orig: Node;
  copy: Node | null;
  readonly isArray: boolean;
  readonly view: View;
}

type StandIn = { [STATE]: NodeState };

/** True for a value handed out by `isolatedView`. */
export function isView(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as Node)[VIEW] === true;
}

export function isolatedView<T extends object>(root: T): T {
  return makeProxy(root as Node, { proxies: null }) as T;
}

function makeProxy(orig: Node, view: View): object {
  const isArray = Array.isArray(orig);
  const standIn = (isArray ? [] : {}) as unknown as StandIn;
  // A configurable own property of the stand-in: the traps never report it, which proxy invariants allow.
  standIn[STATE] = { orig, copy: null, isArray, view };
  return new Proxy(standIn, HANDLER);
}

function wrap(value: unknown, view: View): unknown {
  if (typeof value !== 'object' || value === null || isView(value)) return value;
  view.proxies ??= new Map();
  let proxy = view.proxies.get(value);
  if (!proxy) {
    proxy = makeProxy(value as Node, view);
    view.proxies.set(value, proxy);
  }
  return proxy;
}

const current = (s: NodeState): Node => s.copy ?? s.orig;

function writable(s: NodeState): Node {
  if (!s.copy)
    s.copy = (s.isArray ? (s.orig as unknown as unknown[]).slice() : { ...s.orig }) as Node;
  return s.copy;
}

const HANDLER: ProxyHandler<StandIn> = {
  get(t, key) {
    if (key === VIEW) return true;
    const s = t[STATE];
    const cur = current(s);
    const value = cur[key];
    if (typeof key === 'symbol' || !Object.hasOwn(cur, key)) return value;
    return wrap(value, s.view);
  },
  set(t, key, value) {
    writable(t[STATE])[key] = value;
    return true;
  },
  has(t, key) {
    return key in current(t[STATE]);
  },
  deleteProperty(t, key) {
    const s = t[STATE];
    if (s.isArray && key === 'length') return false;
    delete writable(s)[key];
    return true;
  },
  ownKeys(t) {
    return Reflect.ownKeys(current(t[STATE]));
  },
  getOwnPropertyDescriptor(t, key) {
    const s = t[STATE];
    const d = Reflect.getOwnPropertyDescriptor(current(s), key);
    if (!d) return undefined;
    const isLength = s.isArray && key === 'length';
    return {
      value: isLength ? d.value : wrap(d.value, s.view),
      writable: true,
      enumerable: d.enumerable,
      configurable: !isLength,
    };
  },
  defineProperty(t, key, desc) {
    const s = t[STATE];
    if (s.isArray && key === 'length') {
      writable(s).length = desc.value;
      return true;
    }
    return Reflect.defineProperty(writable(s), key, { ...desc, configurable: true });
  },
  getPrototypeOf(t) {
    return Reflect.getPrototypeOf(t[STATE].orig);
  },
  preventExtensions() {
    return false;
  },
};

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
 * invariants never tie the view to the shared node's (possibly frozen) state.
 * Limitation: `structuredClone` refuses proxies; `JSON.parse(JSON.stringify(v))`
 * or `toPlain(v)` copy a view.
 */
interface NodeState {
  readonly orig: object;
  copy: Record<PropertyKey, unknown> | null;
  readonly isArray: boolean;
}

const VIEW = Symbol('agent-hooks.view');

/** True for a value handed out by `isolatedView`. */
export function isView(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[VIEW] === true
  );
}

export function isolatedView<T extends object>(root: T): T {
  // One proxy per shared node, so aliases (target and the field it mirrors) stay one object.
  let proxies: Map<object, object> | null = null;

  const wrap = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null || isView(value)) return value;
    proxies ??= new Map();
    let proxy = proxies.get(value);
    if (!proxy) {
      proxy = makeProxy(value);
      proxies.set(value, proxy);
    }
    return proxy;
  };

  const makeProxy = (orig: object): object => {
    const state: NodeState = { orig, copy: null, isArray: Array.isArray(orig) };
    const current = (): Record<PropertyKey, unknown> =>
      state.copy ?? (state.orig as Record<PropertyKey, unknown>);
    const writable = (): Record<PropertyKey, unknown> => {
      if (!state.copy) {
        state.copy = (
          state.isArray ? (state.orig as unknown[]).slice() : { ...state.orig }
        ) as Record<PropertyKey, unknown>;
      }
      return state.copy;
    };
    const proxy = new Proxy(state.isArray ? [] : {}, {
      get(_t, key) {
        if (key === VIEW) return true;
        const cur = current();
        const value = cur[key];
        if (typeof key === 'symbol' || !Object.hasOwn(cur, key)) return value;
        return wrap(value);
      },
      set(_t, key, value) {
        writable()[key] = value;
        return true;
      },
      has(_t, key) {
        return key in current();
      },
      deleteProperty(_t, key) {
        if (state.isArray && key === 'length') return false;
        delete writable()[key];
        return true;
      },
      ownKeys() {
        return Reflect.ownKeys(current());
      },
      getOwnPropertyDescriptor(_t, key) {
        const d = Reflect.getOwnPropertyDescriptor(current(), key);
        if (!d) return undefined;
        const isLength = state.isArray && key === 'length';
        return {
          value: isLength ? d.value : wrap(d.value),
          writable: true,
          enumerable: d.enumerable,
          configurable: !isLength,
        };
      },
      defineProperty(_t, key, desc) {
        if (state.isArray && key === 'length') {
          writable().length = desc.value;
          return true;
        }
        return Reflect.defineProperty(writable(), key, { ...desc, configurable: true });
      },
      getPrototypeOf() {
        return Reflect.getPrototypeOf(state.orig);
      },
      preventExtensions() {
        return false;
      },
    });
    return proxy;
  };

  return makeProxy(root) as T;
}

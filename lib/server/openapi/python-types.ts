import 'server-only';
import type { JsonSchema } from './spec-components';

/**
 * JSON Schema → Python type hints (3.11+: `X | None`, `NotRequired`), for
 * the generated client. Objects with named members become TypedDicts;
 * everything the hints cannot say (if/then, patterns, bounds) stays in the
 * schema, which the server enforces.
 */

const COMPONENT_PREFIX = '#/components/schemas/';
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PY_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

export const isPyIdentifier = (name: string) => IDENTIFIER.test(name) && !PY_KEYWORDS.has(name);

/** A Python literal of a JSON scalar. */
export function pyLiteral(value: unknown): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  return JSON.stringify(value);
}

/** True for a component that becomes a TypedDict: an object with named members. */
export function isRecordSchema(schema: JsonSchema | undefined): boolean {
  return Boolean(schema && schema.type === 'object' && schema.properties);
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('Any')) return 'Any';
  // None last reads best: `str | None`.
  const sorted = [...unique.filter((t) => t !== 'None'), ...unique.filter((t) => t === 'None')];
  return sorted.join(' | ') || 'Any';
}

const SCALARS: Record<string, string> = {
  string: 'str',
  integer: 'int',
  number: 'float',
  boolean: 'bool',
  null: 'None',
  object: 'dict[str, Any]',
};

export class PyTypes {
  constructor(private readonly components: Record<string, JsonSchema>) {}

  /** The hint for one schema. */
  hint(schema: JsonSchema | undefined): string {
    if (!schema) return 'Any';
    if (typeof schema.$ref === 'string') return this.refHint(schema.$ref);
    if ('const' in schema) return `Literal[${pyLiteral(schema.const)}]`;
    if (Array.isArray(schema.enum)) return `Literal[${schema.enum.map(pyLiteral).join(', ')}]`;
    const anyOf = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
    if (anyOf) return union(anyOf.map((s) => this.hint(s)));
    if (Array.isArray(schema.allOf)) {
      const named = (schema.allOf as JsonSchema[]).find((s) => typeof s.$ref === 'string');
      return named ? this.hint(named) : 'Any';
    }
    const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
    if (types.length === 0) return 'Any';
    return union(
      (types as string[]).map((t) =>
        t === 'array' ? `list[${this.hint(schema.items as JsonSchema)}]` : (SCALARS[t] ?? 'Any'),
      ),
    );
  }

  private refHint(ref: string): string {
    if (!ref.startsWith(COMPONENT_PREFIX)) return 'Any';
    const name = ref.slice(COMPONENT_PREFIX.length);
    // A pointer into a component ($defs/...) is described by that component only.
    if (name.includes('/')) return 'Any';
    const target = this.components[name];
    return isRecordSchema(target) ? name : this.hint(target);
  }

  /** A TypedDict for one component (functional form when a member is no identifier). */
  typedDict(name: string, schema: JsonSchema): string {
    const properties = schema.properties as Record<string, JsonSchema>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const members = Object.entries(properties).map(([key, member]) => {
      const hint = this.hint(member);
      return { key, hint: required.has(key) ? hint : `NotRequired[${hint}]` };
    });
    const doc = typeof schema.description === 'string' ? schema.description : name;
    if (members.every((m) => isPyIdentifier(m.key))) {
      return [
        `class ${name}(TypedDict):`,
        `    ${pyDocstring(doc, 4)}`,
        ...members.map((m) => `    ${m.key}: ${m.hint}`),
      ].join('\n');
    }
    const entries = members.map((m) => `        ${JSON.stringify(m.key)}: ${m.hint},`);
    return [
      `${name} = TypedDict(`,
      `    ${JSON.stringify(name)},`,
      '    {',
      ...entries,
      '    },',
      ')',
    ].join('\n');
  }
}

/** A one-paragraph docstring, wrapped at 96 columns, quotes escaped. */
export function pyDocstring(text: string, indent: number): string {
  const words = text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').split(/\s+/);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && indent + line.length + word.length + 1 > 96) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  const pad = ' '.repeat(indent);
  return lines.length === 1 ? `"""${lines[0]}"""` : `"""${lines.join(`\n${pad}`)}\n${pad}"""`;
}

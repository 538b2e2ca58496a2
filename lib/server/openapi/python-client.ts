import 'server-only';
import type { OpenApiDocument } from './document';
import { isPyIdentifier, isRecordSchema, PyTypes, pyDocstring } from './python-types';
import type { JsonSchema } from './spec-components';

/**
 * Renders docs/python/checkpoint_client.py from the document: a stdlib-only
 * client (urllib + json) whose operations, paths, methods, parameters, auth
 * and types all come from the document. Written by
 * scripts/openapi-python.ts; tests/unit/openapi-python.test.ts fails when
 * the committed file differs from this output.
 */

export const PYTHON_CLIENT_PATH = 'docs/python/checkpoint_client.py';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type Param = { name: string; in: string; required?: boolean; schema: JsonSchema };

/** Python's keywords: a parameter may be named one (`from` of the log's consistency proof). */
const PY_KEYWORDS = new Set(
  'and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/** A Python identifier; a keyword gets PEP 8's trailing underscore (`from` → `from_`). */
const snake = (name: string) => {
  const id = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]/g, '_')
    .toLowerCase();
  return PY_KEYWORDS.has(id) ? `${id}_` : id;
};

function header(doc: OpenApiDocument): string {
  return `"""${doc.info.title}: a client for Python 3.11+, standard library only.

Generated from the OpenAPI document (version ${doc.info.version}) by
\`npx tsx --conditions=react-server scripts/openapi-python.ts\`; do not edit, regenerate.
The document is served at /api/v1/openapi.json and rendered at /docs/api.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict

API_VERSION = ${JSON.stringify(doc.info.version)}
`;
}

function errorCodes(doc: OpenApiDocument): string {
  const table = doc.components.schemas.Error['x-error-codes'] as {
    code: string;
    status: number;
    meaning: string;
  }[];
  const rows = table.map(
    (e) => `    ${JSON.stringify(e.code)}: (${e.status}, ${JSON.stringify(e.meaning)}),`,
  );
  return [
    "# code -> (HTTP status, meaning): the Error schema's x-error-codes.",
    'ERROR_CODES: dict[str, tuple[int, str]] = {',
    ...rows,
    '}',
  ].join('\n');
}

const RUNTIME = `

class CheckpointError(Exception):
    """A refusal: the body's \`{"error": {"code", "message", "details"?}}\` and the status."""

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details


@dataclass
class Response:
    """A successful answer: its status (several per operation, e.g. 200 and 202) and JSON body."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


def _json(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError:
        return raw.decode("utf-8", "replace")
`;

const CLIENT = `

class CheckpointClient:
    """One method per operation of the document; each returns a Response or raises CheckpointError."""

    def __init__(self, base_url: str, api_key: str | None = None, timeout: float = 60.0) -> None:
        # timeout: above the longest long-poll (30 s), so a wait is never cut short.
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def _call(
        self,
        method: str,
        path: str,
        *,
        auth: bool,
        query: dict[str, Any] | None = None,
        headers: dict[str, Any] | None = None,
        body: Any = None,
    ) -> Response:
        url = self.base_url + path
        params = {k: str(v) for k, v in (query or {}).items() if v is not None}
        if params:
            url += "?" + urllib.parse.urlencode(params)
        send = {"Accept": "application/json"}
        send.update({k: str(v) for k, v in (headers or {}).items() if v is not None})
        data = None
        if body is not None:
            # allow_nan=False: NaN and Infinity are outside the JSON value domain (§4.4).
            data = json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
            send["Content-Type"] = "application/json"
        if auth:
            if not self.api_key:
                raise ValueError(f"{method} {path} needs a host API key")
            send["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(url, data=data, headers=send, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as res:
                return Response(res.status, _json(res.read()), dict(res.headers.items()))
        except urllib.error.HTTPError as err:
            payload = _json(err.read())
            error = payload.get("error") if isinstance(payload, dict) else None
            if isinstance(error, dict):
                raise CheckpointError(
                    err.code, str(error.get("code")), str(error.get("message")), error.get("details")
                ) from None
            raise CheckpointError(err.code, "http_error", f"HTTP {err.code}") from None`;

function method(
  types: PyTypes,
  path: string,
  verb: string,
  op: JsonSchema,
  secured: boolean,
): string {
  const params = (op.parameters as Param[] | undefined) ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const optional = params.filter((p) => p.in !== 'path');
  const body = (op.requestBody as JsonSchema | undefined)?.content as
    | Record<string, { schema: JsonSchema }>
    | undefined;
  const bodySchema = body?.['application/json']?.schema;
  const args = ['self', ...pathParams.map((p) => `${snake(p.name)}: ${types.hint(p.schema)}`)];
  if (bodySchema) args.push(`body: ${types.hint(bodySchema)}`);
  if (optional.length > 0) {
    args.push('*');
    for (const p of optional) {
      const hint = types.hint(p.schema);
      args.push(
        p.required ? `${snake(p.name)}: ${hint}` : `${snake(p.name)}: ${hint} | None = None`,
      );
    }
  }
  const responses = Object.entries(op.responses as Record<string, JsonSchema>)
    .filter(([status]) => status.startsWith('2'))
    .map(([status, r]) => {
      const schema = (r.content as Record<string, { schema: JsonSchema }> | undefined)?.[
        'application/json'
      ]?.schema;
      return `${status} ${schema ? types.hint(schema) : '(no body)'}`;
    });
  const pyPath = path.replace(
    /\{([^}]+)\}/g,
    (_m, name: string) => `{urllib.parse.quote(${snake(name)}, safe='')}`,
  );
  const call = [
    `"${verb.toUpperCase()}"`,
    pyPath.includes('{') ? `f"${pyPath}"` : `"${pyPath}"`,
    `auth=${secured ? 'True' : 'False'}`,
  ];
  const inQuery = optional.filter((p) => p.in === 'query');
  const inHeader = optional.filter((p) => p.in === 'header');
  const dict = (ps: Param[]) =>
    `{${ps.map((p) => `${JSON.stringify(p.name)}: ${snake(p.name)}`).join(', ')}}`;
  if (inQuery.length > 0) call.push(`query=${dict(inQuery)}`);
  if (inHeader.length > 0) call.push(`headers=${dict(inHeader)}`);
  if (bodySchema) call.push('body=body');
  const doc = `${op.summary}. ${verb.toUpperCase()} ${path}: ${responses.join('; ')}.`;
  return [
    '',
    `    def ${snake(String(op.operationId))}(${args.join(', ')}) -> Response:`,
    `        ${pyDocstring(doc, 8)}`,
    `        return self._call(${call.join(', ')})`,
  ].join('\n');
}

export function renderPythonClient(doc: OpenApiDocument): string {
  const types = new PyTypes(doc.components.schemas);
  const records = Object.entries(doc.components.schemas)
    .filter(([name, schema]) => isRecordSchema(schema) && isPyIdentifier(name))
    .map(([name, schema]) => types.typedDict(name, schema));
  const secured = (op: JsonSchema) =>
    !(Array.isArray(op.security) && op.security.length === 0) &&
    Array.isArray(doc.security) &&
    doc.security.length > 0;
  const methods: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const verb of METHODS) {
      const op = item[verb] as JsonSchema | undefined;
      if (op) methods.push(method(types, path, verb, op, secured(op)));
    }
  }
  return [
    header(doc),
    errorCodes(doc),
    RUNTIME,
    '\n# The schemas (components/schemas) that are objects with named members.\n',
    records.join('\n\n\n'),
    CLIENT,
    methods.join('\n'),
    '',
  ]
    .join('\n')
    .replace(/\n{4,}/g, '\n\n\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n+$/, '\n');
}

/**
 * Writes docs/python/checkpoint_client.py from the OpenAPI document:
 *   npx tsx --conditions=react-server scripts/openapi-python.ts
 * (the condition lets the server modules that hold the schemas load outside Next).
 * tests/unit/openapi-python.test.ts fails when the committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import pkg from '../package.json' with { type: 'json' };
import { buildOpenApiDocument } from '../lib/server/openapi/document';
import { PYTHON_CLIENT_PATH, renderPythonClient } from '../lib/server/openapi/python-client';

const target = new URL(`../${PYTHON_CLIENT_PATH}`, import.meta.url);
writeFileSync(target, renderPythonClient(buildOpenApiDocument({ version: pkg.version })));
console.log(`wrote ${PYTHON_CLIENT_PATH}`);

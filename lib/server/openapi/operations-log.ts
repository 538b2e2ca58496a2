import 'server-only';
import { evidenceQuery } from '@/lib/server/audit/evidence';
import { consistencyQuery, inclusionQuery, treeHeadQuery } from '@/lib/server/transparency/api';
import {
  HOST_AUTH,
  jsonResponse,
  NO_STORE,
  type OperationSpec,
  pathParam,
  queryParams,
} from './operation';
import { zodJsonSchema } from './zod-schema';

/**
 * The transparency log: /api/v1/log/** (issue 13 item 3). Hashes are
 * lowercase hex SHA-256 (RFC 9162 §2.1); a verifier checks the tree head's
 * JWS against /.well-known/jwks.json and the proof against its root.
 */

const TAGS = ['Transparency log'];
const hash = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const size = { type: 'integer', minimum: 0 } as const;
const treeHead = {
  type: 'object',
  additionalProperties: false,
  required: ['size', 'root_hash', 'timestamp', 'kid', 'jws'],
  properties: {
    size: { ...size, description: 'Leaves in the tree.' },
    root_hash: { ...hash, description: 'MTH of the first `size` leaves.' },
    timestamp: { type: 'integer', description: 'When it was signed, ms since the epoch.' },
    kid: { type: 'string', description: 'The signing key (a kid of /.well-known/jwks.json).' },
    jws: {
      type: 'string',
      description:
        'Compact JWS (EdDSA, `typ: checkpoint-tree-head+jws`) over the RFC 8785 canonical JSON of `{size, root_hash, timestamp, kid}`: verify it, then trust only its payload.',
    },
  },
};

const headExample = {
  size: 1024,
  root_hash: '83fcf4718736e39b5fc22aa44f0978da25b27016840720628fc75e1e9a4ebc6a',
  timestamp: 1796212800000,
  kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
  jws: 'eyJhbGciOiJFZERTQSIsImtpZCI6ImtQcksuLi4iLCJ0eXAiOiJjaGVja3BvaW50LXRyZWUtaGVhZCtqd3MifQ.eyJraWQiOiIuLi4ifQ.c2lnbmF0dXJl',
};

const HEX_LIST = { type: 'array', items: hash } as const;

/*
 * The proof examples are real: the 1024 leaves are SHA-256(0x00 ‖ "leaf i"),
 * so PATH(1000, D[1024]) and PROOF(1000, D[1024]) below verify against the
 * roots shown (headExample's for size 1024), as a reader's verifier should.
 */
const inclusionExample = {
  index: 1000,
  size: 1024,
  leaf_hash: 'f5d7866b364677018713ae72ac3f90c9c099b4e1aa3cf9ca2e0917a2aeaa15ef',
  proof: [
    '1bbb4812d3c0fc19d8f9c020b9e61150bb1177ab4f72efa7c2ac52a337a7c550',
    '084c4fd3a88919032dd8897b3ca6a8777766170814e73d1e9f1087b2370ea856',
    'b40ece041c4f7355c76ce06eb3f72871effd3a4540fc615c03cd0e74e8c360bd',
    '9952a8894d10f3a778f0a1d0c4a72cc5989ccbb95c0141e9b4c2333e7e640f77',
    '176e8b5196b671dcd240976aa392f2f63e257542a0e87e1f6b26d6d7df894fc9',
    '2bd90aba84d56422dd5fa1d3f4fb739e1bde1ba35a49675ea847e38eec8b9b2f',
    'cff546e831d1959ac68f54f3e2bcff1c9aab60e7392c84aa16dcf1e8e819c469',
    '2d0121539305c1f8ad226b6e3ac2bd8488c13bc24cd2b470ce1079b9b5e1fee9',
    'dc6f7df665c7f7a01169bb17e52362b2032c820230bbfb08decddaf7f8626ac3',
    'd9579873166aa59bc8d37da864923bf63dacf0fff19ea2caba63b20cab82cd30',
  ],
  kind: 'record',
  ref_id: '48213',
  tree_head: headExample,
};

/** Root of the first 1000 leaves: 2ff33fb9d8f14f89ca306289633336a168ff3f4532e8f741a0019dcb4c1d60a1. */
const consistencyExample = {
  from: 1000,
  to: 1024,
  proof: [
    '9952a8894d10f3a778f0a1d0c4a72cc5989ccbb95c0141e9b4c2333e7e640f77',
    'f43337f40aeff733d6cbcc3e27d85ee4e207a6d79c28cc29475bdbb9dc2f2f15',
    '176e8b5196b671dcd240976aa392f2f63e257542a0e87e1f6b26d6d7df894fc9',
    '2bd90aba84d56422dd5fa1d3f4fb739e1bde1ba35a49675ea847e38eec8b9b2f',
    'cff546e831d1959ac68f54f3e2bcff1c9aab60e7392c84aa16dcf1e8e819c469',
    '2d0121539305c1f8ad226b6e3ac2bd8488c13bc24cd2b470ce1079b9b5e1fee9',
    'dc6f7df665c7f7a01169bb17e52362b2032c820230bbfb08decddaf7f8626ac3',
    'd9579873166aa59bc8d37da864923bf63dacf0fff19ea2caba63b20cab82cd30',
  ],
};

/** An evidence bundle's shape, values shortened (docs/verifying.md has every field). */
const EVIDENCE_EXAMPLE = [
  JSON.stringify({
    format: 'checkpoint-audit-export',
    version: 1,
    kind: 'evidence',
    generated_at: '2026-12-03T12:00:00.000Z',
    scope: { kind: 'session', host_id: '6f1c2a3e-…', session_id: 'sess-1' },
    tree_head: headExample,
    consistency: [],
    jwks_url: 'https://checkpoint.example.com/.well-known/jwks.json',
    jwks: { keys: ['…'] },
    sessions: [
      {
        host_id: '6f1c2a3e-…',
        session_id: 'sess-1',
        head: { head_hash: '…', last_sequence: 0, record_count: 1 },
      },
    ],
  }),
  '{"kind":"record","id":"48213","host":"billing","leaf_index":1000,"proof":["…"],"columns":{"…":"…"},"leaf":{"…":"…"}}',
  '{"kind":"end","records":1,"decisions":0}',
  '',
].join('\n');

export function logOperations(): Record<string, Record<string, OperationSpec>> {
  return {
    '/api/v1/log/tree-head': {
      get: {
        operationId: 'getTreeHead',
        tags: TAGS,
        summary: 'A signed tree head',
        description:
          'The newest signed tree head of the transparency log over every stored record and decision (one is signed on demand when there is none yet), or with `size` the one issued at that size (404 if none was). Any host key, or a signed-in auditor or admin.',
        parameters: queryParams(zodJsonSchema(treeHeadQuery), {
          size: 'The tree size whose head to answer.',
        }),
        responses: {
          '200': jsonResponse(
            'The tree head.',
            treeHead,
            { latest: { summary: 'Newest head', value: headExample } },
            NO_STORE,
          ),
        },
        errors: [...HOST_AUTH, 'request_invalid', 'forbidden', 'not_found'],
      },
    },
    '/api/v1/log/proof/inclusion': {
      get: {
        operationId: 'getInclusionProof',
        tags: TAGS,
        summary: 'Inclusion proof of a record or decision',
        description:
          "RFC 9162 §2.1.3 PATH of one leaf, named by exactly one of `index`, `record` (an InterceptionRecord id) or `decision` (a Decision id), against the signed tree head of `size` (default: the newest, signed on demand when the leaf is newer). Recompute the leaf hash as SHA-256(0x00 ‖ canonical JSON of the leaf data) and check it with the proof against `tree_head`'s signed root. A host sees only its own records and decisions; another host's is 404.",
        parameters: queryParams(zodJsonSchema(inclusionQuery), {
          index: 'Leaf index.',
          record: 'InterceptionRecord id.',
          decision: 'Decision id.',
          size: 'Size of the signed tree head to prove against (default: the newest).',
        }),
        responses: {
          '200': jsonResponse(
            'The proof.',
            {
              type: 'object',
              additionalProperties: false,
              required: ['index', 'size', 'leaf_hash', 'proof', 'kind', 'ref_id', 'tree_head'],
              properties: {
                index: size,
                size,
                leaf_hash: hash,
                proof: { ...HEX_LIST, description: 'Sibling hashes, leaf side first.' },
                kind: { type: 'string', enum: ['record', 'decision'] },
                ref_id: { type: 'string' },
                tree_head: treeHead,
              },
            },
            { record: { summary: 'A record against the newest head', value: inclusionExample } },
          ),
        },
        errors: [...HOST_AUTH, 'request_invalid', 'forbidden', 'not_found'],
      },
    },
    '/api/v1/log/proof/consistency': {
      get: {
        operationId: 'getConsistencyProof',
        tags: TAGS,
        summary: 'Consistency proof between two tree sizes',
        description:
          'RFC 9162 §2.1.4 PROOF(from, to), 0 < from ≤ to ≤ the log size: the older tree is a prefix of the newer. Check it against the roots of the two signed tree heads.',
        parameters: queryParams(zodJsonSchema(consistencyQuery), {
          from: 'The older size.',
          to: 'The newer size.',
        }),
        responses: {
          '200': jsonResponse(
            'The proof.',
            {
              type: 'object',
              additionalProperties: false,
              required: ['from', 'to', 'proof'],
              properties: { from: size, to: size, proof: HEX_LIST },
            },
            { grown: { summary: 'Size 1000 to 1024', value: consistencyExample } },
          ),
        },
        errors: [...HOST_AUTH, 'request_invalid', 'forbidden'],
      },
    },
    '/api/v1/audit/sessions/{id}/evidence': {
      get: {
        operationId: 'getSessionEvidence',
        tags: TAGS,
        summary: "A session's evidence bundle",
        description:
          "Everything an outside auditor needs to check one session with nothing but the file (issue 13 item 5): JSONL (docs/verifying.md), a header line with the signed tree head, the session's chain head and the JWKS itself, then one line per record and per decision of the tickets its records link to, each with its leaf data, leaf index and RFC 9162 inclusion proof, then an end line with the counts. Verify it offline with `agent-hooks audit verify FILE --jwks JWKS.json`. The host's own API key (another host's session is 404) or a signed-in auditor or admin. `consistency_from` adds the consistency proof from an older signed tree head of that size, for `audit verify --tree-head`.",
        parameters: [
          pathParam('id', { type: 'string' }, 'The session id (as the host sent it).'),
          ...queryParams(zodJsonSchema(evidenceQuery), {
            host_id: 'The host the session belongs to (session ids are per host).',
            consistency_from: 'Size of an older signed tree head to prove consistency from.',
          }),
        ],
        responses: {
          '200': {
            description:
              'The bundle as a download (`Content-Disposition: attachment`), one JSON object per line.',
            headers: NO_STORE,
            content: {
              'application/x-ndjson': {
                schema: { type: 'string' },
                examples: {
                  bundle: {
                    summary: 'A session of one record (lines shortened)',
                    value: EVIDENCE_EXAMPLE,
                  },
                },
              },
            },
          },
        },
        errors: [...HOST_AUTH, 'request_invalid', 'forbidden', 'not_found'],
      },
    },
  };
}

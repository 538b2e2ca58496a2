import 'server-only';

/**
 * The leaf data definitions live in lib/verify/leaf-data.ts (pure, so the
 * offline verifier shares them); re-exported here for the server's imports.
 */
export {
  type DecisionLeafSource,
  decisionLeafHash,
  decisionLeafObject,
  leafBytes,
  type RecordLeafSource,
  recordLeafHash,
  recordLeafObject,
} from '@/lib/verify/leaf-data';

import 'server-only';

/** The deployment's signing keys and JWS (issue 13 item 1): what receipts and tree heads use. */
export {
  type CheckedSigningKey,
  checkedSigningKeys,
  notAuthenticDetail,
  type UnauthenticKey,
  unauthenticSigningKeys,
} from './authentic';
export { SigningKeyError } from './errors';
export { ACTIVE_KEY_TTL_MS, forgetActiveSigningKey, publicJwks, signJws, verifyJws } from './jws';
export type { PrivateSigningJwk, PublicSigningJwk } from './key-material';
export { parseSigningKey, SIGNING_ALG } from './key-material';
export {
  ensureSigningKey,
  listSigningKeys,
  rotateSigningKey,
  type SigningKeyActor,
  type SigningKeyRow,
} from './keys';
export { publicJwksOf } from './publish';

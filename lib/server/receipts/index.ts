import 'server-only';

/** Signed approval receipts (issue 13 item 2); the format is docs/receipts.md. */
export {
  DECIDER_AUTH,
  DECIDER_KINDS,
  type DeciderAuth,
  type DeciderKind,
  deciderAuthOf,
  RECEIPT_TYP,
  type ReceiptClaims,
  type ReceiptSubject,
  receiptClaims,
  valueSha256,
} from './claims';
export {
  deploymentOrigin,
  jwksUrl,
  type ReceiptEvidence,
  receiptArtefact,
  receiptEvidence,
  receiptUrl,
} from './evidence';
export {
  type ExpiredSubject,
  issueExpiryReceipts,
  receiptForTicket,
  receiptOrNull,
  signReceipt,
} from './issue';
export { decodeReceipt, type ReceiptCheck, verifyReceipt } from './verify';

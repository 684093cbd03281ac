/** The rulebase tests' fixtures: a workflow that lets every call through, and the refund rules. */
import { fileURLToPath } from 'node:url';

/** A workflow with no constraints: the rulebase alone decides the calls. */
export const OPEN_WORKFLOW = fileURLToPath(new URL('./fixtures/open.yaml', import.meta.url));
/** `issue_refund` needs `verified(O, true)` (only `verify_identity`'s result gives it) and the customer's yes. */
export const REFUND_RULES = fileURLToPath(new URL('./fixtures/refunds.rules', import.meta.url));

/** `book_reservation` needs the user's yes to a message that stated its flights, cabin and payment method. */
export const BOOKING_RULES = fileURLToPath(new URL('./fixtures/booking.rules', import.meta.url));

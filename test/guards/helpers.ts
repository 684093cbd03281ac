import { createFactStore } from '../../src/facts/index.js';
import { createSentinel, type SentinelOptions } from '../../src/guards/index.js';
import { parseRulebase } from '../../src/rules/index.js';
import { createFakeClock } from '../../src/testing/index.js';

/** The example rulebase of DESIGN.md section 10. */
export const REFUND_RULES = `
context booking_of_interest "the booking the customer is asking about"
data booking_status(B, S)    from get_booking(booking_id: B) -> S = $.status   ttl 60s
data flight_delay(B, M)      from get_booking(booking_id: B) -> M = $.delay_minutes ttl 60s
askable customer_confirms(B) "Does the customer confirm the refund for booking {B}?"
rule refundable(B) :- booking_status(B, "cancelled_by_airline").
rule refundable(B) :- flight_delay(B, M), M >= 180.
guard issue_refund(booking_id: B) :- B = booking_of_interest, refundable(B), customer_confirms(B).
`;

export interface Booking {
  status: string;
  delay_minutes: number;
}

/** A sentinel over REFUND_RULES with a get_booking tool that counts its calls. */
export function refundSetup(bookings: Record<string, Booking>, options: Partial<SentinelOptions> = {}) {
  const clock = createFakeClock();
  const facts = createFactStore({ clock });
  const calls: string[] = [];
  const rulebase = parseRulebase(REFUND_RULES, { source: 'refund.rules' });
  const getBooking = async (args: Record<string, unknown>) => {
    calls.push(String(args.booking_id));
    const booking = bookings[String(args.booking_id)];
    if (!booking) throw new Error(`no booking ${String(args.booking_id)}`);
    return booking;
  };
  const sentinel = createSentinel({ rulebase, facts, tools: { get_booking: { execute: getBooking } }, ...options });
  return { clock, facts, calls, rulebase, sentinel };
}

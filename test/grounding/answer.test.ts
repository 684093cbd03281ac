/**
 * The one rule for a user's yes (`isPlainYes`), which the sentinel and the proxy both read: the cases each side
 * tested before they were one function, and the question mark, where the proxy's stricter reading was kept.
 */
import { describe, expect, it } from 'vitest';
import { isPlainYes } from '../../src/grounding/index.js';
import { isExplicitYes } from '../../src/proxy/index.js';

const YES = ['yes', 'Yes.', 'YES!', 'Yes, please go ahead.', 'OK, do it', 'okay', 'I confirm', 'Confirmed.', 'sure, proceed', 'go ahead', 'Please go ahead', 'yes yes', 'I agree', 'Approved', 'Yes, please proceed.', 'ok go ahead', "That's correct", 'Change of plans. Yes, please cancel it.'];
const NOT_YES = ['', 'no', 'yes, but for my other order', 'not yes', 'Yes, A-2000 instead', 'maybe', 'yesterday', 'ok but wait', 'y'.repeat(80), 'yes but on the 21st', 'Yes. Actually, wait', 'not yet', 'What would it cost?'];

describe('isPlainYes: one rule for a yes', () => {
  it.each(YES)('takes %j', (text) => {
    expect(isPlainYes(text)).toBe(true);
  });
  it.each(NOT_YES)('refuses %j', (text) => {
    expect(isPlainYes(text)).toBe(false);
  });
  it.each(['yes?', 'Yes. Will I get a receipt?', 'ok?'])('refuses %j: a question back is no answer (the stricter reading kept)', (text) => {
    expect(isPlainYes(text)).toBe(false);
  });
  it("is the proxy's isExplicitYes", () => {
    expect(isExplicitYes).toBe(isPlainYes);
  });
});

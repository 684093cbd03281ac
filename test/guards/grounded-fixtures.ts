/** A rulebase with one grounded confirmation, shared by the core and the host tests. */
export const UPGRADE_RULES = `
askable confirms_change(R) for change_flights(flights, cabin, payment_id) "Change {R} exactly as follows: {call}? (yes/no)"
guard change_flights(reservation_id: R, flights: _Fs, cabin: _C, payment_id: _P) :- confirms_change(R).
`;

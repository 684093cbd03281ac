/** Data of the airline example that several host tests use. */

/** A regular member; 1YVFB9: economy, two passengers, DEN-PHL-CLT on 2024-05-27. */
export const EMMA = 'emma_smith_9363';

/** A booking for Emma, DEN to CLT one way in economy on `date`, that the policy allows once she confirms it. */
export const emmaBooking = (date: string) => ({
  user_id: EMMA,
  origin: 'DEN',
  destination: 'CLT',
  flight_type: 'one_way',
  cabin: 'economy',
  flights: [
    { flight_number: 'HAT158', date },
    { flight_number: 'HAT016', date },
  ],
  passengers: [{ first_name: 'Emma', last_name: 'Smith', dob: '1987-01-01' }],
  payment_methods: [{ payment_id: 'credit_card_4253816', amount: 324 }],
  total_baggages: 1,
  nonfree_baggages: 0,
  insurance: 'no',
});

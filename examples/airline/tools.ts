/**
 * The airline tools of the tau-bench domain, written over the example database. Data tools read, action tools write.
 * They check nothing about the policy on purpose, like the benchmark's API ("The API does not check these for the
 * agent"): the rulebase in `policy.rules` is what stands between the model and a forbidden write.
 */
import { readFileSync } from 'node:fs';

export interface Flight {
  flight_number: string;
  origin: string;
  destination: string;
  scheduled_departure_time_est: string;
  scheduled_arrival_time_est: string;
  dates: Record<string, { status: string; [key: string]: unknown }>;
}

export interface Reservation {
  reservation_id: string;
  user_id: string;
  origin: string;
  destination: string;
  flight_type: 'one_way' | 'round_trip';
  cabin: 'basic_economy' | 'economy' | 'business';
  flights: Array<{ origin: string; destination: string; flight_number: string; date: string; price: number }>;
  passengers: Array<{ first_name: string; last_name: string; dob: string }>;
  payment_history: Array<{ payment_id: string; amount: number }>;
  created_at: string;
  total_baggages: number;
  nonfree_baggages: number;
  insurance: 'yes' | 'no';
  status?: 'cancelled';
}

export interface User {
  name: { first_name: string; last_name: string };
  membership: 'regular' | 'silver' | 'gold';
  payment_methods: Record<string, { id: string; source: string; amount?: number }>;
  reservations: string[];
  [key: string]: unknown;
}

export interface AirlineDb {
  users: Record<string, User>;
  reservations: Record<string, Reservation>;
  flights: Record<string, Flight>;
}

/** A tool: what the model sees (name, description, JSON schema) and what runs. */
export interface AirlineTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  execute(args: Record<string, unknown>): unknown;
}

/** The world's time in the tau-bench airline domain, 2024-05-15 15:00 EST, read with naive timestamps as UTC. */
export const AIRLINE_NOW = Date.UTC(2024, 4, 15, 15, 0, 0);

/** A fresh copy of the example database, so each run (and each test) starts from the same state. */
export function loadAirlineDb(): AirlineDb {
  return JSON.parse(readFileSync(new URL('./data/db.json', import.meta.url), 'utf8')) as AirlineDb;
}

const schemas = JSON.parse(readFileSync(new URL('./data/tools.json', import.meta.url), 'utf8')) as Array<{
  function?: { name: string; description: string; parameters: Record<string, unknown> };
  name?: string;
  description?: string;
  parameters?: Record<string, unknown>;
}>;

/** The published tool schemas, plus `get_flight_status` (see below). */
export const AIRLINE_TOOL_SCHEMAS = [
  ...schemas.map((schema) => schema.function ?? (schema as { name: string; description: string; parameters: Record<string, unknown> })),
  {
    name: 'get_flight_status',
    description: 'Get the status of a flight on a date, with its origin and destination.',
    parameters: {
      type: 'object',
      properties: { flight_number: { type: 'string' }, date: { type: 'string' } },
      required: ['flight_number', 'date'],
    },
  },
];

/**
 * Every airline tool over `db`. `get_flight_status` is not among the published 14 tools; the policy's cancellation
 * rules turn on flight status (cancelled by the airline, segments already flown), and the published tools only
 * expose it through flight search, so the example adds this read-only lookup.
 */
export function createAirlineTools(db: AirlineDb): Record<string, AirlineTool> {
  const user = (id: unknown) => {
    const found = db.users[String(id)];
    if (!found) throw new Error(`User not found: ${String(id)}`);
    return found;
  };
  const reservation = (id: unknown) => {
    const found = db.reservations[String(id)];
    if (!found) throw new Error(`Reservation not found: ${String(id)}`);
    return found;
  };
  const handlers: Record<string, (args: Record<string, unknown>) => unknown> = {
    get_user_details: (args) => user(args.user_id),
    // As in tau-bench, a reservation carries no status until it is cancelled (the rules read it with a default).
    get_reservation_details: (args) => reservation(args.reservation_id),
    get_flight_status: (args) => {
      const flight = db.flights[String(args.flight_number)];
      const day = flight?.dates[String(args.date)];
      if (!flight || !day) throw new Error(`Flight not found: ${String(args.flight_number)} on ${String(args.date)}`);
      return { flight_number: flight.flight_number, date: args.date, origin: flight.origin, destination: flight.destination, status: day.status };
    },
    list_all_airports: () => [...new Set(Object.values(db.flights).flatMap((flight) => [flight.origin, flight.destination]))].sort(),
    search_direct_flight: (args) =>
      Object.values(db.flights)
        .filter((flight) => flight.origin === args.origin && flight.destination === args.destination && flight.dates[String(args.date)]?.status === 'available')
        .map((flight) => ({ flight_number: flight.flight_number, origin: flight.origin, destination: flight.destination, ...flight.dates[String(args.date)] })),
    search_onestop_flight: () => [],
    cancel_reservation: (args) => {
      const found = reservation(args.reservation_id);
      found.status = 'cancelled';
      return found;
    },
    update_reservation_flights: (args) => {
      const found = reservation(args.reservation_id);
      found.cabin = args.cabin as Reservation['cabin'];
      found.flights = (args.flights as Array<{ flight_number: string; date: string }>).map((segment) => {
        const flight = db.flights[segment.flight_number]!;
        const price = (flight.dates[segment.date]?.prices as Record<string, number> | undefined)?.[found.cabin] ?? 0;
        return { origin: flight.origin, destination: flight.destination, flight_number: segment.flight_number, date: segment.date, price };
      });
      return found;
    },
    update_reservation_baggages: (args) => {
      const found = reservation(args.reservation_id);
      found.total_baggages = Number(args.total_baggages);
      found.nonfree_baggages = Number(args.nonfree_baggages);
      return found;
    },
    update_reservation_passengers: (args) => {
      const found = reservation(args.reservation_id);
      found.passengers = args.passengers as Reservation['passengers'];
      return found;
    },
    send_certificate: (args) => {
      const found = user(args.user_id);
      const id = `certificate_${Object.keys(found.payment_methods).length + 1000000}`;
      found.payment_methods[id] = { id, source: 'certificate', amount: Number(args.amount) };
      return `Certificate ${id} added to user ${String(args.user_id)} with amount ${String(args.amount)}.`;
    },
    book_reservation: (args) => {
      const id = `NEW${Object.keys(db.reservations).length}`;
      db.reservations[id] = { ...(args as unknown as Reservation), reservation_id: id, payment_history: args.payment_methods as Reservation['payment_history'], created_at: '2024-05-15T15:00:00' };
      user(args.user_id).reservations.push(id);
      return db.reservations[id];
    },
    calculate: (args) => String(args.expression),
    think: () => '',
    transfer_to_human_agents: () => 'Transfer successful',
  };
  return Object.fromEntries(
    AIRLINE_TOOL_SCHEMAS.map((schema) => [schema.name, { name: schema.name, description: schema.description, parameters: schema.parameters, execute: handlers[schema.name]! }]),
  );
}

export { type Clock, systemClock } from './clock.js';

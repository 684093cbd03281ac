export { type Clock, systemClock, systemTimers, type Timers } from './clock.js';

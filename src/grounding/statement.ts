/**
 * Whether a message stated the arguments of a call: what makes a user's yes count for that call. Values are compared
 * after normalising case, spacing (`credit_card_7815826` and "credit card 7815826" are the same words), number
 * formats (`$1,234.50` is 1234.5; "two" is 2) and date formats ("May 20, 2024", "05/20/2024", "20 May" and
 * `2024-05-20` are one date); a list or an object is stated when every value in it is, in any order.
 */

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_WORD = `(${MONTHS.map((month) => `${month.slice(0, 3)}(?:${month.slice(3)})?`).join('|')}|sept)\\.?`;
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
// Bounded: a restatement is a few hundred characters; a huge message costs no more than this.
const MAX_TEXT = 16_000;

const pad = (number: number) => String(number).padStart(2, '0');
const monthOf = (word: string) => {
  const key = word.toLowerCase().replace(/\.$/, '').slice(0, 3);
  return MONTHS.findIndex((month) => month.startsWith(key)) + 1;
};
/** A date as words: `d20240520` for a full date, `md0520` for a day without its year. */
const dateWord = (year: number | undefined, month: number, day: number) =>
  month < 1 || month > 12 || day < 1 || day > 31 ? undefined : year === undefined ? ` md${pad(month)}${pad(day)} ` : ` d${year}${pad(month)}${pad(day)} `;

/** Rewrites every date in a text as one word (`d20240520`), so any format of it matches any other. */
function normaliseDates(text: string): string {
  const year = (value: string | undefined) => (value === undefined ? undefined : Number(value));
  return text
    .replace(/\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:t[\d:.]+z?)?\b/g, (whole, y: string, m: string, d: string) => dateWord(Number(y), Number(m), Number(d)) ?? whole)
    .replace(/\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/g, (whole, m: string, d: string, y: string) => dateWord(Number(y), Number(m), Number(d)) ?? whole)
    .replace(new RegExp(`\\b${MONTH_WORD}\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4})\\b)?`, 'g'), (whole, m: string, d: string, y?: string) => dateWord(year(y), monthOf(m), Number(d)) ?? whole)
    .replace(new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_WORD}(?:,?\\s+(\\d{4})\\b)?`, 'g'), (whole, d: string, m: string, y?: string) => dateWord(year(y), monthOf(m), Number(d)) ?? whole);
}

/** Rewrites amounts and numbers in one form: no currency sign, no thousands separator, no trailing zero decimals. */
function normaliseNumbers(text: string): string {
  return text
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/\b(\d+)\.(\d*?)0+\b/g, (_whole, integer: string, decimals: string) => (decimals === '' ? integer : `${integer}.${decimals}`))
    .replace(new RegExp(`\\b(${NUMBER_WORDS.join('|')})\\b`, 'g'), (word) => String(NUMBER_WORDS.indexOf(word)));
}

/**
 * A text in the form values are looked up in: lower case, dates and numbers in one format, every run of other
 * characters (spaces, underscores, punctuation, quotes) one space, and a space at both ends.
 */
export function normaliseStatement(text: string): string {
  const lower = normaliseNumbers(normaliseDates(text.slice(0, MAX_TEXT).toLowerCase()));
  // A dot stays only inside a number (`1234.5`); everything else that is not a letter or a digit separates words.
  return ` ${lower.replace(/(?<!\d)\.|\.(?!\d)/g, ' ').replace(/[^a-z0-9.]+/g, ' ').trim()} `;
}

// The message a yes answered is checked again on every retry of the call: normalised once, not each time.
let lastMessage: string | undefined;
let lastStatement = '';
function normalisedOnce(message: string): string {
  if (message !== lastMessage) {
    lastStatement = normaliseStatement(message);
    lastMessage = message;
  }
  return lastStatement;
}

/** The scalar values inside a value (every item of a list, every value of an object), as normalised words. */
function leaves(value: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 8 || value === null || value === undefined || typeof value === 'boolean') return out;
  if (Array.isArray(value)) for (const item of value) leaves(item, out, depth + 1);
  else if (typeof value === 'object') for (const item of Object.values(value)) leaves(item, out, depth + 1);
  else {
    const word = normalisedValue(String(value));
    if (word !== '') out.push(word);
  }
  return out;
}

// Argument values repeat from check to check (ids, dates, cabins): each is normalised once, up to a bound.
const MAX_CACHED_VALUES = 2_000;
const normalisedValues = new Map<string, string>();
function normalisedValue(value: string): string {
  let word = normalisedValues.get(value);
  if (word === undefined) {
    word = normaliseStatement(value).trim();
    if (normalisedValues.size >= MAX_CACHED_VALUES) normalisedValues.clear();
    normalisedValues.set(value, word);
  }
  return word;
}

/** Whether one normalised value is in a normalised text; a full date is also stated by its day and month alone. */
function isStated(word: string, statement: string): boolean {
  if (statement.includes(` ${word} `)) return true;
  const date = /^d\d{4}(\d{4})$/.exec(word);
  return date !== null && statement.includes(` md${date[1]} `);
}

/**
 * The named arguments of a call that a message did not state, in the order named: empty when the message stated them
 * all. An argument the call does not pass cannot have been stated and is listed.
 * @example
 * unstatedArguments(['cabin', 'flights'], { cabin: 'business', flights: [{ flight_number: 'HAT001', date: '2024-05-20' }] },
 *   'Upgrade to Business on HAT001, May 20th?') // []
 */
export function unstatedArguments(names: readonly string[], args: Readonly<Record<string, unknown>>, message: string): string[] {
  const statement = normalisedOnce(message);
  return names.filter((name) => {
    if (!(name in args) || args[name] === undefined) return true;
    return !leaves(args[name]).every((word) => isStated(word, statement));
  });
}

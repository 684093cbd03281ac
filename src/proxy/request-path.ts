/**
 * The one path a proxied request is known by. A client's request target is normalised once, before routing, and that
 * normalised path is the only one the proxy reads afterwards: for the proxy-key check, for choosing the route, for
 * monitoring, and for the URL sent upstream. A path that reads one way to the router and another way to the upstream
 * (`/v1/./chat/completions`, `/%761/../chat/completions`) would otherwise reach the model unmonitored.
 * @module
 */

/** Where every proxied route lives; the upstream's own base path replaces it when forwarding. */
export const BASE_PATH = '/v1';

/**
 * The generation routes: monitored, POST only. Matched whatever the case of their letters, so `/v1/Chat/Completions`
 * cannot dodge the monitor.
 */
export const MONITORED_ROUTES = ['/v1/chat/completions', '/v1/completions', '/v1/responses', '/v1/messages'] as const;

/** One of the {@link MONITORED_ROUTES}. */
export type MonitoredRoute = (typeof MONITORED_ROUTES)[number];

/** Whether a normalised path is a monitored route: only its monitored method reaches the upstream there. */
export function isMonitoredRoute(path: string): path is MonitoredRoute {
  return (MONITORED_ROUTES as readonly string[]).includes(path);
}

/** Paths that are the proxy's own (probes and metrics) and need no key. */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/livez', '/readyz', '/healthz', '/metrics']);

/** A request target, normalised: `path` is percent-encoded canonically, `query` is kept as sent (with its `?`). */
export interface NormalisedTarget {
  path: string;
  query: string;
}

/** Why a request target is refused before routing. */
export interface RefusedTarget {
  refused: string;
}

/** Longest request target read; a longer one is refused rather than parsed. */
const MAX_TARGET_LENGTH = 8192;

/**
 * Normalises a request target (`request.url` as Node gives it):
 * - only origin-form targets (`/path?query`); absolute-form (`http://host/...`) and `*` are refused;
 * - percent-encoding is decoded once; an encoded `/` or `\` (`%2F`, `%5C`), a backslash, NUL or another control
 *   character, and malformed encoding are refused, since they read differently to different servers;
 * - empty segments (`//`) are dropped, `.` segments removed and `..` segments resolved, after decoding (so `%2e%2e`
 *   is `..`); a `..` above the root is refused;
 * - a trailing `/` is dropped;
 * - a monitored route is matched the way a lenient server would match it (any case, `;` parameters, trailing spaces
 *   or dots) and takes its canonical spelling;
 * - the result is encoded again segment by segment, so the upstream reads exactly what the router read.
 *
 * Whether the path lies under {@link BASE_PATH} is the router's business: anything else is a 404.
 * @example
 * normaliseTarget('/v1/x/../Chat/completions/?a=1') // { path: '/v1/chat/completions', query: '?a=1' }
 * normaliseTarget('/v1/%2e%2e/admin')               // { path: '/admin', query: '' } (then a 404)
 * normaliseTarget('/v1/chat%2Fcompletions')         // { refused: 'an encoded slash (%2F) ...' }
 */
export function normaliseTarget(target: string): NormalisedTarget | RefusedTarget {
  if (target.length > MAX_TARGET_LENGTH) return { refused: `the request target is longer than ${MAX_TARGET_LENGTH} characters` };
  if (!target.startsWith('/')) return { refused: 'only a path is accepted as the request target (no scheme, host or *)' };
  const queryAt = target.indexOf('?');
  const rawPath = queryAt === -1 ? target : target.slice(0, queryAt);
  const query = queryAt === -1 ? '' : target.slice(queryAt);
  if (/%(2f|5c)/i.test(rawPath)) return { refused: 'an encoded slash (%2F or %5C) in the path is ambiguous' };
  if (rawPath.includes('\\')) return { refused: 'a backslash in the path is ambiguous' };
  const segments: string[] = [];
  for (const raw of rawPath.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return { refused: 'the path has malformed percent-encoding' };
    }
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(segment)) return { refused: 'the path contains a control character' };
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return { refused: 'the path climbs above the root with ..' };
      segments.pop();
      continue;
    }
    segments.push(segment);
  }
  const monitored = monitoredRouteOf(segments);
  const path = monitored ?? `/${segments.map(encodeSegment).join('/')}`;
  return { path, query };
}

/**
 * The monitored route a path would mean to a lenient server, if any: one that ignores the case of letters, `;`
 * parameters (`completions;x`), and spaces and dots at the end of a segment (`completions.`, `completions%20`), and
 * resolves dot segments after reading them that way (`x/..;/chat/completions` is `x/../chat/completions` to it). Such
 * a path is monitored as that route, and sent upstream by its canonical spelling.
 */
function monitoredRouteOf(segments: readonly string[]): string | undefined {
  const path = looseReading(segments);
  return MONITORED_ROUTES.find((route) => route === path);
}

/**
 * A path as the most lenient server reads it (see {@link monitoredRouteOf}): segments lower-cased, `;` parameters and
 * surrounding spaces dropped, `.` and `..` resolved after that, trailing dots and spaces dropped. A segment the proxy
 * kept as a name (`..;`) can climb for such a server, so the proxy decides by this reading too.
 */
function looseReading(segments: readonly string[]): string {
  const loose: string[] = [];
  for (const raw of segments) {
    const segment = raw.toLowerCase().replace(/;.*$/s, '').trim();
    if (segment === '..') loose.pop();
    else if (segment !== '.') {
      const name = segment.replace(/[.\s]+$/, '');
      if (name !== '') loose.push(name);
    }
  }
  return `/${loose.join('/')}`;
}

/**
 * A normalised path as a lenient server reads it: what a pass-through route must be listed by too, so a path the
 * proxy reads under one prefix cannot reach the upstream as another route (`/v1/models/..;/files`).
 * @example
 * loosePath('/v1/models/..;/files') // '/v1/files'
 */
export function loosePath(path: string): string {
  return looseReading(path.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  }));
}

/** Whether a normalised target was refused. */
export function isRefusedTarget(target: NormalisedTarget | RefusedTarget): target is RefusedTarget {
  return 'refused' in target;
}

/** The path below {@link BASE_PATH}: `/v1/models` -> `/models`, `/v1` -> ``. Only for paths under it. */
export function belowBasePath(path: string): string {
  return path.slice(BASE_PATH.length);
}

/** Whether a normalised path lies under {@link BASE_PATH}. */
export function isUnderBasePath(path: string): boolean {
  return path === BASE_PATH || path.startsWith(`${BASE_PATH}/`);
}

/** A decoded segment encoded again: what `encodeURIComponent` leaves, plus the sub-delimiters RFC 3986 allows in a path. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%(21|24|26|27|28|29|2A|2B|2C|3A|3B|3D|40)/g, (escape) => decodeURIComponent(escape));
}

/** Whether `path` is `prefix` or lies under it, by whole segments. */
function isUnder(path: string, prefix: string): boolean {
  return prefix === '/' || path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * Whether a normalised path that is no monitored route is passed to the upstream, given the `passthrough` prefixes:
 * it must lie under one of them both as it is and as a lenient server reads it ({@link loosePath}). A path under a
 * monitored route (`/v1/responses/{id}`, which returns a stored response with the calls the proxy withheld) passes
 * only by a prefix that names that route or a path under it, never by a shorter one such as `/v1`.
 * @example
 * isPassedThrough('/v1/models', ['/v1'])                 // true
 * isPassedThrough('/v1/responses/resp_1', ['/v1'])       // false
 * isPassedThrough('/v1/responses/resp_1', ['/v1/responses']) // true
 */
export function isPassedThrough(path: string, prefixes: readonly string[]): boolean {
  const loose = loosePath(path);
  const route = MONITORED_ROUTES.find((monitored) => isUnder(loose, monitored));
  return prefixes.some((prefix) => {
    const loosePrefix = loosePath(prefix);
    return isUnder(path, prefix) && isUnder(loose, loosePrefix) && (route === undefined || isUnder(loosePrefix, route));
  });
}

/** Whether a normalised path lies under `route` as a lenient server reads it (so `/v1/Messages/count_tokens` is under `/v1/messages`). */
export function isUnderRoute(path: string, route: MonitoredRoute): boolean {
  return isUnder(loosePath(path), route);
}

/**
 * A `passthrough` prefix as the proxy compares it: normalised as a request path would be, or `undefined` when it is no
 * path under {@link BASE_PATH} (then the configuration is refused).
 * @example
 * normalisePrefix('/v1/models/') // '/v1/models'
 * normalisePrefix('/admin')      // undefined
 */
export function normalisePrefix(prefix: string): string | undefined {
  const target = normaliseTarget(prefix.trim());
  if (isRefusedTarget(target) || target.query !== '' || !isUnderBasePath(target.path)) return undefined;
  return target.path;
}

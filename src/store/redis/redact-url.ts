/**
 * A Redis URL without its user and password, for messages: everything between `//` and the last `@` is hidden, so a
 * password that itself holds `/` or `@` is hidden too. Loads nothing, so configuration errors can use it.
 * @example
 * redactUrl('redis://app:s3cret@cache:6379/0') // 'redis://***@cache:6379/0'
 */
export function redactUrl(url: string): string {
  return url.replace(/\/\/[^\s]*@/, '//***@');
}

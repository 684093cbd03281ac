/** A rulebase in the proxy: the sentinel decides each tool call of an answer from the facts the requests carry. */
export { createProxyRules, MAX_OPEN_CALLS, type ProxyRules, type ProxyRulesOptions } from './proxy-rules.js';
export { isExplicitYes } from './explicit-yes.js';

/**
 * Which workflow serves a request: the first whose selector matches it, else the default. A selector matches when
 * every condition it sets holds: the request's path is under its route prefix, a header has its value, the body's
 * `model` fits its glob, the caller sent the proxy key with its id.
 * @module
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { WorkflowPipeline } from './pipeline.js';

/** The conditions of a selector; those left out hold for every request. */
export interface WorkflowSelector {
  /** A path prefix by whole segments: `/v1/responses`, `/v1/messages`. */
  route?: string;
  /** A request header (name case aside) and its exact value. */
  header?: { name: string; value: string };
  /** A glob over the body's `model`: `*` any run of characters, `?` one. */
  model?: string;
  /** The id of the proxy key the caller sent ({@link proxyKeyId}). */
  key?: string;
}

/** A workflow with the selector that picks it. */
export interface SelectedWorkflow extends WorkflowPipeline {
  select: WorkflowSelector;
}

/** What selection reads of a request. */
export interface SelectionInput {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The id of the proxy key the caller sent, when the proxy has keys. */
  keyId?: string | undefined;
}

/**
 * The id of a proxy key, as selectors and logs name it without showing the key: `key-` and the first 12 hex digits
 * of its SHA-256 (`printf %s "$KEY" | sha256sum | cut -c1-12`).
 * @example
 * proxyKeyId('pk-team-a') // 'key-…' (12 hex digits)
 */
export function proxyKeyId(key: string): string {
  return `key-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

/** A model glob as a regular expression: `*` any run, `?` one character, everything else literal. */
export function modelGlob(glob: string): RegExp {
  const source = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's');
}

/** Whether a selector matches a request. */
export function selectorMatches(selector: WorkflowSelector, input: SelectionInput, glob?: RegExp): boolean {
  if (selector.route !== undefined && !isUnderPrefix(input.path, selector.route)) return false;
  if (selector.header !== undefined && headerValue(input.headers, selector.header.name) !== selector.header.value) return false;
  if (selector.model !== undefined) {
    const model = input.body.model;
    if (typeof model !== 'string' || !(glob ?? modelGlob(selector.model)).test(model)) return false;
  }
  if (selector.key !== undefined && input.keyId !== selector.key) return false;
  return true;
}

/**
 * The selection of a proxy: `pick(input)` returns the first workflow of `workflows` whose selector matches, else
 * `fallback` (the default).
 */
export function createSelection(workflows: readonly SelectedWorkflow[], fallback: WorkflowPipeline): (input: SelectionInput) => WorkflowPipeline {
  if (workflows.length === 0) return () => fallback;
  const compiled = workflows.map((workflow) => ({ workflow, glob: workflow.select.model === undefined ? undefined : modelGlob(workflow.select.model) }));
  return (input) => {
    for (const { workflow, glob } of compiled) if (selectorMatches(workflow.select, input, glob)) return workflow;
    return fallback;
  };
}

/** One header's value; a header sent several times matches none (it could be read either way). */
function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return typeof value === 'string' ? value : undefined;
}

/** Whether a normalised path is `prefix` or lies under it, by whole segments. */
export function isUnderPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

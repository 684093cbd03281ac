#!/usr/bin/env node
/**
 * The `panoptes` command line. Each command lives in `commands/` and returns an exit code; this file only parses
 * arguments and turns thrown Panoptes errors into readable messages.
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { PanoptesError } from '../errors/index.js';
import { auditCommand, positiveInteger, type AuditCommandOptions } from './commands/audit.js';
import { compileCommand, type CompileCommandOptions } from './commands/compile.js';
import { graphCommand } from './commands/graph.js';
import { infoCommand, type InfoCommandOptions } from './commands/info.js';
import { initCommand, type InitCommandOptions } from './commands/init.js';
import { judgeCalibrateCommand, judgeRecordCommand, type JudgeCalibrateOptions, type JudgeRecordOptions } from './commands/judge.js';
import { rulesCheckCommand } from './commands/rules-check.js';
import { serveCommand, type ServeCommandOptions } from './commands/serve.js';
import { testCommand, type TestCommandOptions } from './commands/test.js';
import { validateCommand } from './commands/validate.js';
import { verifyCommand, type VerifyCommandOptions } from './commands/verify.js';
import { INIT_HOSTS } from './init-templates.js';
import { consoleOutput } from './output.js';
import { moduleOption } from './extension-modules.js';

const output = consoleOutput();
const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

// `summary` is the one line `panoptes --help` lists (it must fit beside the longest command, 44 characters in 80
// columns); `description` is the whole story, shown by `panoptes <command> --help`.
const program = new Command()
  .name('panoptes')
  .description('Monitor LLM agents against YAML workflows: check workflows and rules, test scenarios, audit recorded conversations, run the proxy.')
  .version(version)
  .showHelpAfterError()
  .option('--debug', "log each monitor decision as one JSON line on stderr (session, phase, state, constraint, verdict, reason, time); the same as PANOPTES_DEBUG=1")
  .addHelpText('after', '\nRun `panoptes <command> --help` for its options and exit codes.')
  // Every monitor a command makes reads PANOPTES_DEBUG when it is made.
  .hook('preAction', () => {
    if ((program.opts() as { debug?: boolean }).debug) process.env.PANOPTES_DEBUG = '1';
  });

program
  .command('validate')
  .summary('check workflow and rubric files')
  .description('validate workflow files (and rubric files: those with `rubrics:` or `policy:`); exit 1 when any has errors')
  .argument('<files...>', 'workflow or rubric YAML files')
  .option('--json', 'print the findings as JSON')
  .option('--no-strict', 'report references to unknown states as warnings, not errors')
  .option('--strict-paths', 'report a constraint the transitions let an agent break (with the shortest path) as an error, not a warning')
  .addOption(moduleOption())
  .action(async (files: string[], options: { json?: boolean; strict: boolean; strictPaths?: boolean; module?: string[] }) => {
    process.exitCode = await validateCommand(files, options, output);
  });

program
  .command('graph')
  .summary('print a workflow as a Mermaid diagram')
  .description('print a workflow as a Mermaid state diagram; exit 1, with the errors on stderr, when the file has errors')
  .argument('<file>', 'workflow YAML file')
  .option('--no-strict', 'draw references to unknown states (reported as warnings), as validate --no-strict accepts them')
  .addOption(moduleOption())
  .action(async (file: string, options: { strict: boolean; module?: string[] }) => {
    process.exitCode = await graphCommand(file, options, output);
  });

program
  .command('info')
  .summary('what a workflow, rulebase or proxy holds')
  .description('print what a workflow file, a rulebase (.rules) or a running proxy (its http URL) holds: states, transitions, constraints, interventions, versions; contexts, data, askables, rules, facts; a proxy\'s health, workflow and traffic. Exit 1 when the file has errors or the proxy does not answer')
  .argument('<target>', 'workflow YAML file, .rules file, or http(s) URL of a running proxy')
  .option('--json', 'print it as JSON')
  .option('--key <key>', "with a proxy URL: one of the proxy's keys, for GET /info (default: PANOPTES_PROXY_KEY)")
  .addOption(moduleOption())
  .action(async (target: string, options: InfoCommandOptions) => {
    process.exitCode = await infoCommand(target, options, output);
  });

program
  .command('audit')
  .summary('replay transcripts against a workflow')
  .description('replay recorded conversations through a workflow monitor; exit 1 on a violation of --fail-on severity or worse, 2 when an input cannot be read')
  .argument('<transcripts...>', '.json files (one session: an array of messages) or .jsonl files (one { "id", "messages" } per line)')
  .requiredOption('--workflow <file>', 'workflow YAML file')
  .option('--json', 'print the report as JSON')
  .option('--html <file>', 'also write a self-contained HTML report')
  .addOption(
    new Option('--embeddings <kind>', 'exemplar tier: lexical (near-verbatim only), minilm (local sentence model) or none; default: lexical when the workflow has exemplars').choices(['lexical', 'minilm', 'none']),
  )
  .option('--model-path <dir>', 'with --embeddings minilm: the local model folder (read offline)')
  .option('--model <id>', 'with --embeddings minilm: model id, or folder name under --model-path (default: Xenova/all-MiniLM-L6-v2)')
  .addOption(new Option('--fail-on <severity>', 'lowest violation severity that fails the audit').choices(['warning', 'error', 'critical']).default('error'))
  .addOption(new Option('--concurrency <n>', 'files and sessions processed at once').default(4).argParser(positiveInteger))
  .option('--otlp <endpoint>', 'also export each session as a trace over OTLP/HTTP JSON (e.g. http://localhost:4318); headers from OTEL_EXPORTER_OTLP_HEADERS')
  .addOption(moduleOption())
  .action(async (files: string[], options: AuditCommandOptions) => {
    process.exitCode = await auditCommand(files, options, output);
  });

program
  .command('rules')
  .summary('check .rules files: rules check <files...>')
  .description('work with rulebase (.rules) files')
  .command('check')
  .description('check rulebase files; exit 1 when any has errors')
  .argument('<files...>', 'rulebase files')
  .option('--json', 'print the findings as JSON')
  .option('--tools <file>', "JSON list of the agent's tools (OpenAI tool definitions); unknown tools and parameters become errors")
  .action(async (files: string[], options: { json?: boolean; tools?: string }) => {
    process.exitCode = await rulesCheckCommand(files, options, output);
  });

program
  .command('test')
  .summary('run scenarios and check their expectations')
  .description('run scenario files (conversations with expected verdicts, refusals, loops); exit 1 when any fails')
  .argument('[files...]', 'scenario YAML files or folders (default: panoptes/scenarios)')
  .option('--workflow <file>', 'workflow for scenarios that name none')
  .option('--json', 'print the report as JSON')
  .option('--junit <file>', 'also write a JUnit XML report for CI')
  .addOption(moduleOption())
  .action(async (files: string[], options: TestCommandOptions) => {
    process.exitCode = await testCommand(files, options, output);
  });

program
  .command('compile')
  .summary('draft a workflow or rubrics from a policy')
  .description('draft a workflow (and rules), or with --judge judged rubrics, from a written policy with a model; validated and repaired; progress on stderr')
  .argument('<policy>', 'the policy as text or Markdown')
  .option('--model <provider:name>', "chat model for LangChain's initChatModel (needs langchain and the provider's package)", 'openai:gpt-4o-mini')
  .option('--scripted <answers.json>', 'answer from a JSON list of drafts instead of a model (tests, reproducible examples)')
  .option('--tools <file>', "JSON list of the agent's tools; states may only be classified by these")
  .option('--judge', 'draft a rubric file (policies an LLM judge checks) instead of a workflow')
  .option('--out <file>', 'write the workflow (with --judge, the rubric file) here (default: stdout)')
  .option('--rules-out <file>', 'with --tools: also draft a rulebase and write it here')
  .option('--save-prompt <file>', 'write the last conversation sent to the model as JSON')
  .addOption(new Option('--max-repairs <n>', 'rounds in which validation errors go back to the model').default(3).argParser(nonNegativeInteger))
  .action(async (policy: string, options: CompileCommandOptions) => {
    process.exitCode = await compileCommand(policy, options, output);
  });

program
  .command('verify')
  .summary('check cases against a policy with a model')
  .description('check every case against every criterion of a written policy with a model (ReAct, verified citations); one JSON line per case and criterion, a summary, an HTML report')
  .requiredOption('--policy <files...>', 'the policy: Markdown (sections by heading) or text files')
  .requiredOption('--criteria <file>', 'YAML list of criteria: - { id, text }')
  .requiredOption('--cases <file>', 'JSONL file: one case per line, a JSON object with an "id"')
  .option('--model <provider:name>', "chat model for LangChain's initChatModel (needs langchain and the provider's package)", 'openai:gpt-4o-mini')
  .option('--scripted <answers.json>', 'answer from a JSON list of verdicts instead of a model (offline runs, tests)')
  .addOption(new Option('--scripted-delay <ms>', 'with --scripted: how long each answer takes').default(0).argParser(nonNegativeInteger))
  .addOption(new Option('--concurrency <n>', 'runs (a case and a criterion) at once').default(4).argParser(positiveInteger))
  .option('--out <file>', 'write the results here, one JSON line per case and criterion as each ends (default: stdout)')
  .option('--html <file>', 'also write an HTML report: each verdict with its rationale and its citations in the policy')
  .option('--resume', 'go on with the results already in --out: no case and criterion runs twice')
  .option('--prices <file>', 'JSON prices in USD per million tokens by model name, for the cost column: { "gpt-4o-mini": { "input": 0.15, "output": 0.6 } }')
  .addOption(new Option('--max-iterations <n>', 'model calls one run may make').argParser(positiveInteger))
  .option('--candidate-model <provider:name>', 'A/B: a second model; --ab-share of the cases (by a hash of the case id) go to it instead')
  .option('--candidate-scripted <answers.json>', 'A/B: the candidate answers from these scripted verdicts')
  .option('--ab-share <share>', 'A/B: the share of cases for the candidate, 0.1 or 10%')
  .option('--labels <file>', 'A/B: JSONL of reviewed verdicts, { "caseId", "criterionId", "status" } a line: each arm\'s agreement with them')
  .option('--ab-rollback-when <file>', 'A/B: while this file exists, every new case goes to the primary (touch it to roll back mid-job)')
  .action(async (options: VerifyCommandOptions) => {
    process.exitCode = await verifyCommand(options, output);
  });

const judge = program.command('judge').summary('record and calibrate judged rubrics').description('work with judged rubrics: record a cassette from a live model, calibrate a judge on labelled inputs');

judge
  .command('record')
  .description('judge every input with a live model and write the answers as a cassette (keyed by the cache key) for offline replay; exit 1 when some judgments failed')
  .requiredOption('--rubrics <file>', 'rubric YAML file')
  .requiredOption('--inputs <jsonl>', 'one { "input": { "messages", "call" | "response" }, "rubric"? } per line')
  .requiredOption('--out <file>', 'the cassette (JSON); answers already in it are kept')
  .option('--model <provider:name>', "chat model for LangChain's initChatModel (needs langchain and the provider's package)", 'openai:gpt-4o-mini')
  .option('--rubric <id>', 'the rubric of inputs that name none (default: the first)')
  .addOption(new Option('--concurrency <n>', 'judgments at once').default(4).argParser(positiveInteger))
  .option('--prices <file>', 'JSON prices in USD per million tokens by model: { "openai:gpt-4o-mini": { "input": 0.15, "output": 0.6 } } (a bare name like gpt-4o-mini works too)')
  .action(async (options: JudgeRecordOptions) => {
    process.exitCode = await judgeRecordCommand(options, output);
  });

judge
  .command('calibrate')
  .description('judge labelled inputs and report AUROC, true-positive rates at 1% and 5% false positives, expected calibration error, calls, tokens and (with --prices) cost per run, and a pass_at for a target false-positive rate')
  .requiredOption('--rubrics <file>', 'rubric YAML file')
  .requiredOption('--labels <jsonl>', 'one { "input", "label": true (should fail) | false, "rubric"?, "run"? } per line')
  .option('--cassette <file>', 'replay answers from a cassette (strict: a missing answer is an error) instead of a live model')
  .option('--model <provider:name>', "without --cassette: chat model for LangChain's initChatModel", 'openai:gpt-4o-mini')
  .option('--rubric <id>', 'the rubric of cases that name none (default: the first)')
  .addOption(new Option('--target-fpr <rate>', 'false-positive rate the suggested pass_at keeps to').default(0.01).argParser(rate))
  .addOption(new Option('--concurrency <n>', 'judgments at once').default(4).argParser(positiveInteger))
  .option('--prices <file>', 'JSON prices in USD per million tokens by model: { "openai:gpt-4o-mini": { "input": 0.15, "output": 0.6 } } (a bare name like gpt-4o-mini works too)')
  .option('--json', 'print the report as JSON')
  .action(async (options: JudgeCalibrateOptions) => {
    process.exitCode = await judgeCalibrateCommand(options, output);
  });

program
  .command('init')
  .summary('write a starter panoptes/ folder')
  .description('write a starter panoptes/ folder: workflow, rules, passing scenarios, and the wiring for the host (agent.mjs runs offline and refuses the forbidden call; the proxy gets panoptes.yaml)')
  .addOption(new Option('--host <host>', 'the agent framework').choices([...INIT_HOSTS]).default('langchain'))
  .option('--dir <folder>', 'folder to create', 'panoptes')
  .option('--force', 'overwrite files that exist')
  .action(async (options: InitCommandOptions) => {
    process.exitCode = await initCommand(options, output);
  });

program
  .command('serve')
  .summary('run the OpenAI-compatible proxy')
  .description('run the OpenAI-compatible proxy: point any OpenAI client at http://<host>:<port>/v1 (docs/proxy.md)')
  .option('--config <file>', 'YAML config file (keys in docs/proxy.md); PANOPTES_* variables and flags override it')
  .option('--upstream <url>', 'base URL of the OpenAI-compatible upstream, /v1 included (e.g. http://127.0.0.1:8000/v1)')
  .option('--workflow <file>', 'workflow YAML file')
  .option('--port <n>', 'port to listen on (0 picks a free port; default 4100)')
  .option('--host <host>', 'address to listen on (default 127.0.0.1)')
  .option('--redis <url>', 'share sessions through Redis (redis://host:port); needs the redis package')
  .option('--loops', 'turn on loop detection')
  .addOption(moduleOption("; replaces the config's modules: and PANOPTES_MODULES"))
  .action(async (options: ServeCommandOptions) => {
    process.exitCode = await serveCommand(options, output);
  });

function rate(value: string): number {
  const parsed = Number(value);
  if (!(parsed >= 0 && parsed <= 1)) throw new InvalidArgumentError('expected a rate from 0 to 1, e.g. 0.01');
  return parsed;
}

function nonNegativeInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError('expected a whole number >= 0');
  return parsed;
}

try {
  await program.parseAsync();
} catch (error) {
  if (!PanoptesError.isInstance(error)) throw error;
  output.err(error.message);
  process.exitCode = 1;
}

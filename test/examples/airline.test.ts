import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;

/** Issue 6, item 6: `npm run example:airline` shows a cancellation refused with blockers, the gaps filled, then proved. */
it('npm run example:airline: refused until the customer is known and has answered, then proved and run', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' };
  delete env.OPENAI_API_KEY; // the offline, scripted run
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', TSX, 'examples/airline/agent.ts'], { cwd: ROOT, env });
  const lines = stdout.split('\n').map((line) => line.trimEnd());
  const at = (text: string, from = 0) => {
    const index = lines.findIndex((line, position) => position >= from && line.includes(text));
    expect(index, `a line with: ${text}`).toBeGreaterThanOrEqual(0);
    return index;
  };

  // First attempt: nobody is identified, so the refusal says to find the user id and bind it.
  const firstRefusal = at('panoptes  refused cancel_reservation before it ran. The agent reads:');
  at('- Find out the customer\'s user id, once they have given it (current_user), then call set_context with name "current_user".', firstRefusal);
  const askId = at('agent     I can help with that. First, what is your user id?', firstRefusal);

  // The agent binds what the customer said, asks the policy, and is refused again with the policy's two questions.
  const bind = at('agent     calls set_context({"name":"current_user","value":"emma_smith_9363"})', askId);
  const query = at('tool      query_policy -> Yes: cancellable(reservation_of_interest) holds.', bind);
  const secondRefusal = at('panoptes  refused cancel_reservation before it ran. The agent reads:', query);
  at('- Ask the user: "What is the reason for cancelling 1YVFB9: change_of_plan, airline_cancelled_flight, health, weather or other?"', secondRefusal);
  at('- Ask the user: "Cancel the whole reservation 1YVFB9? The refund goes to the original payment methods in 5 to 7 business days. (yes/no)"', secondRefusal);
  const asks = at('agent     It can still be cancelled. Before I do it, the policy needs 2 answers from you:', secondRefusal);

  // The customer answers; the agent records both answers, and the third attempt is proved before it runs.
  // The yes is bound to this exact call: the goal ends with the call's reference (issue 14).
  const recorded = at('tool      record_confirmation -> Recorded: confirms_cancellation("1YVFB9", "cancel_reservation#', asks);
  const proved = at('panoptes  proved cancel_reservation allowed before it ran:', recorded);
  at('cancellable("1YVFB9")  [rule, policy.rules:113]', proved);
  at('cancellation_reason("1YVFB9", change_of_plan)  [askable, user]', proved);
  at('tool      cancel_reservation -> {"reservation_id":"1YVFB9"', proved);
  at('agent     Done: reservation 1YVFB9 is cancelled.', proved);

  expect(lines.filter((line) => line.includes('calls cancel_reservation'))).toHaveLength(3);
  expect(lines).toContain('  reservation 1YVFB9  cancelled in the database');
  expect(lines).toContain('  cancel_reservation  refused twice before it ran, ran once');
  // The yes covered that one cancellation and was consumed when it ran (issue 14); the reason stays.
  expect(lines).toContain('  from the customer   cancellation_reason("1YVFB9", change_of_plan)');
});

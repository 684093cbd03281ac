import { describe, expect, it } from 'vitest';
import { InvalidOptionError, PanoptesError } from '../../src/index.js';

describe('PanoptesError', () => {
  it('is recognised by marker, not by prototype', () => {
    const foreign = Object.assign(new Error('copy'), { [Symbol.for('panoptes.error')]: true, code: 'INVALID_OPTION' });
    expect(PanoptesError.isInstance(foreign)).toBe(true);
    expect(PanoptesError.isInstance(new Error('plain'))).toBe(false);
    expect(PanoptesError.isInstance(null)).toBe(false);
  });

  it('narrows by code in subclasses', () => {
    const error = new InvalidOptionError({ parameter: 'threshold', value: 1.5, fix: 'Pass a number in (0, 1].' });
    expect(error.message).toBe('Invalid option `threshold`: received 1.5. Pass a number in (0, 1].');
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect(InvalidOptionError.isInstance(new PanoptesError('LOOP_DETECTED', 'x'))).toBe(false);
  });
});

describe('WorkflowViolationError', () => {
  it('keeps the text for the model apart from the developer message', async () => {
    const { WorkflowViolationError } = await import('../../src/index.js');
    const error = new WorkflowViolationError({ intervention: 'verify_first', modelMessage: 'Verify identity first.', sessionId: 's1' });
    expect(error.message).toBe("Model call blocked by intervention 'verify_first' in session 's1': Verify identity first.");
    expect(error.modelMessage).toBe('Verify identity first.');
    expect(WorkflowViolationError.isInstance(error)).toBe(true);
    expect(error.code).toBe('WORKFLOW_VIOLATION');
  });
});

/**
 * Every built-in workflow step's handler, keyed by step type. A step type added to the mesh schema
 * (`StepSchema`) without a handler here fails to compile ("Property '<type>' is missing in type …").
 */
import type { Step } from '@trellis/mesh/schema';
import { agentStep } from './agent';
import { codeStep } from './code';
import { emailStep } from './email';
import { httpStep } from './http';
import { mapStep } from './map';
import { passStep } from './pass';
import { splitStep } from './split';
import { sqlStep } from './sql';
import type { StepHandler, StepHandlers } from './types';

/** The handlers. */
export const STEPS = {
  split: splitStep,
  map: mapStep,
  pass: passStep,
  email: emailStep,
  code: codeStep,
  sql: sqlStep,
  http: httpStep,
  agent: agentStep,
} satisfies StepHandlers;

/** The handler of `step`'s type. */
export function stepOf(step: Step): StepHandler<Step['type']> {
  // `step.type` picks the handler of that very type, which the compiler cannot correlate through an
  // index; the handlers' methods take their parameters bivariantly, so this widening is sound.
  return STEPS[step.type];
}

/** True for a step that must not run inside the commit transaction (lane `effect` or `unpack`). */
export function isHeavyStep(step: Step): boolean {
  return stepOf(step).lane !== 'inline';
}

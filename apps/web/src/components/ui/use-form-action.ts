'use client';
/** The submit of an admin page's add form: run the action on the form's data, clear the form when it worked, else show why. */
import { useState, type FormEvent } from 'react';
import { errorMessage } from '@/trpc/errors';

/**
 * `onSubmit` for a form: prevents the page load, runs `action` with the form's fields, resets the
 * form when it resolves, and puts the server's message in `problem` when it rejects. `setProblem`
 * lets other actions of the page (a row's Remove) report there too.
 */
export function useFormAction(action: (data: FormData) => Promise<unknown>) {
  const [problem, setProblem] = useState<string | null>(null);
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    setProblem(null);
    action(new FormData(form)).then(
      () => form.reset(),
      (err: unknown) => setProblem(errorMessage(err)),
    );
  };
  return { problem, setProblem, onSubmit };
}

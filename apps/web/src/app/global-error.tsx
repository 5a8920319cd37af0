'use client';
/** Last resort when even the root layout failed: plain HTML, no stack trace. */
export default function GlobalError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: 'system-ui, sans-serif', padding: '4rem 1.5rem', maxWidth: '36rem', margin: '0 auto' }}>
        <h1 style={{ fontSize: '1.25rem' }}>Trellis could not show this page</h1>
        <p style={{ color: '#475569' }}>
          Try again; if it keeps happening, the server log has the details{error.digest ? ` under reference ${error.digest}` : ''}.
        </p>
        <button type="button" onClick={reset}>Try again</button>
      </body>
    </html>
  );
}

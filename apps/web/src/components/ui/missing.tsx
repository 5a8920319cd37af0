import Link from 'next/link';

/** A page for an address whose mesh or run does not exist (mistyped, or from another install). */
export function Missing({ title, detail, href, linkText, testId }: { title: string; detail: string; href: string; linkText: string; testId: string }) {
  return (
    <main className="mx-auto max-w-lg px-6 py-16" data-testid={testId}>
      <h1 className="text-xl font-semibold">{title}</h1>
      <p className="mt-2 text-sm text-slate-600">{detail}</p>
      <Link href={href} className="mt-6 inline-block text-sm text-sky-700 hover:underline">{linkText}</Link>
    </main>
  );
}

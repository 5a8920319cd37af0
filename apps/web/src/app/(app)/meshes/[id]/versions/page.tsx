import type { Metadata } from 'next';
import { VersionHistory } from '@/components/versions/version-history';

export const metadata: Metadata = { title: 'Version history' };

export default async function MeshVersionsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <VersionHistory meshId={id} />;
}

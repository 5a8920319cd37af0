import type { Metadata } from 'next';
import { MeshEditor } from '@/components/canvas/mesh-editor';

export const metadata: Metadata = { title: 'Mesh' };

export default async function MeshPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <MeshEditor meshId={id} />;
}

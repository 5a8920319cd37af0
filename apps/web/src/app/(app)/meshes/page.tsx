import type { Metadata } from 'next';
import { MeshList } from '@/components/meshes/mesh-list';

export const metadata: Metadata = { title: 'Meshes' };

export default function MeshesPage() {
  return (
    <main className="mx-auto w-full max-w-5xl px-6 py-8">
      <MeshList />
    </main>
  );
}

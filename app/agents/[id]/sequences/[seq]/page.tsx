import { notFound } from 'next/navigation';
import { SequenceView } from '@/components/sequence/SequenceView';
import { storage } from '../../../../api/_lib/context';
import { queryKeys } from '@/lib/ui/query-keys';
import { OPS_PAGE } from '@/lib/ui/page-window';
import { RAW_FILES_PAGE } from '@/lib/ui/raw-file-window';
import { Prefetched } from '../../../../_lib/prefetch';
import { pageTitle } from '@/lib/ui/page-title';
import { scopedAgent } from '../../../../_lib/scoped-agent';

type Props = { params: Promise<{ id: string; seq: string }> };

export async function generateMetadata({ params }: Props) {
  const { id, seq } = await params;
  return { title: pageTitle(`Sequence #${seq}`, (await scopedAgent(id))?.name) };
}

export default async function SequencePage({ params }: Props) {
  const { id, seq: raw } = await params;
  const latest = (await scopedAgent(id))?.latest_sequence ?? null;
  // Past the latest sync there is nothing to show, nor any neighbour to link to: the designed 404.
  if (!/^\d+$/.test(raw) || latest === null || Number(raw) > latest) notFound();
  const seq = Number(raw);
  const s = await storage();
  return (
    <Prefetched entries={[[queryKeys.sequence(id, seq), () => s.getSequence({ agentId: id, seq, opsLimit: OPS_PAGE, rawLimit: RAW_FILES_PAGE })]]}>
      <SequenceView agentId={id} seq={seq} />
    </Prefetched>
  );
}

import { describe, expect, it } from 'vitest';
import { factStatus, type RecordTimeline } from './status';

const v = (seq: number, op: string, matches: boolean) => ({ seq, op, matches });
const status = (timelines: RecordTimeline[], moveSources: string[] = []) =>
  factStatus({ latestSequence: 9, timelines, isMoveSource: (id, seq) => moveSources.includes(`${id}@${seq}`) });

describe('what became of a fact', () => {
  it('is present while a record still holds it, and the latest sequence is its last sighting', () => {
    expect(status([{ record_id: 'a', versions: [v(2, 'create', true)] }])).toEqual({ present: true, last_seen_sequence: 9, gone_at_sequence: null, deleted: false });
  });

  it('is gone where the last holder stopped holding it, deleted only by a real deletion', () => {
    const edited = [{ record_id: 'a', versions: [v(2, 'create', true), v(5, 'update', false)] }];
    expect(status(edited)).toEqual({ present: false, last_seen_sequence: 4, gone_at_sequence: 5, deleted: false });
    const deleted = [{ record_id: 'a', versions: [v(2, 'create', true), v(5, 'delete', false)] }];
    expect(status(deleted)).toEqual({ present: false, last_seen_sequence: 4, gone_at_sequence: 5, deleted: true });
  });

  it('does not call the delete half of a move (the index before first-class moves) a deletion', () => {
    const moved = [{ record_id: 'a', versions: [v(2, 'create', true), v(5, 'delete', false)] }];
    expect(status(moved, ['a@5'])).toMatchObject({ gone_at_sequence: 5, deleted: false });
  });

  it('does not call a move-out (first-class moves: the source closes with another op) a deletion', () => {
    const moved = [{ record_id: 'a', versions: [v(2, 'create', true), v(5, 'move', false)] }];
    expect(status(moved)).toMatchObject({ gone_at_sequence: 5, deleted: false });
  });

  it('follows a moved memory to its destination, and its deletion there', () => {
    const chain = [
      { record_id: 'a', versions: [v(2, 'create', true), v(5, 'delete', false)] },
      { record_id: 'b', versions: [v(5, 'move', true), v(7, 'delete', false)] },
    ];
    expect(status(chain, ['a@5'])).toEqual({ present: false, last_seen_sequence: 6, gone_at_sequence: 7, deleted: true });
  });

  it('is deleted only when every last holder was deleted', () => {
    const mixed = [
      { record_id: 'a', versions: [v(1, 'create', true), v(6, 'delete', false)] },
      { record_id: 'b', versions: [v(3, 'create', true), v(6, 'update', false)] },
    ];
    expect(status(mixed)).toMatchObject({ gone_at_sequence: 6, deleted: false });
  });
});

/** Chart colours of the record ops (kept in step with the theme tokens in globals.css; moves: Tailwind violet-600). */
export const OP_COLORS = { create: '#2da44e', update: '#d4a72c', delete: '#cf222e', move: '#7c3aed' } as const;

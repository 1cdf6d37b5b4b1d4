/** Chart colours of the three record ops (kept in step with the theme tokens in globals.css). */
export const OP_COLORS = { create: '#2da44e', update: '#d4a72c', delete: '#cf222e' } as const;

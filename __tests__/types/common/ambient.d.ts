// What the README's examples take as given.
declare global {
  const stripe: { charges: { create(params: Record<string, unknown>): Promise<{ id: string }> } };
}
export {};

/** The client-state store cannot be read as it was written (a damaged or foreign file). */
export class StoreDamaged extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreDamaged';
  }
}

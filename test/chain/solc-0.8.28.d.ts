// solc-js as npm ships it (no types of its own): the two calls the upto proxy's build test makes.
declare module "solc-0.8.28" {
  const solc: { version(): string; compile(input: string): string };
  export default solc;
}

// Circuit artifacts imported `with { type: "file" }`: a path that works from the repository and, embedded, from
// the single binary (`bun build --compile`).
declare module "*.wasm" {
  const path: string;
  export default path;
}
declare module "*.zkey" {
  const path: string;
  export default path;
}

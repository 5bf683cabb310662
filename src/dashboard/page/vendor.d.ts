// uPlot's browser build and style, served as text by routes.ts (and embedded by `bun build --compile`).
declare module "uplot/dist/uPlot.iife.min.js" {
  const text: string;
  export default text;
}
declare module "uplot/dist/uPlot.min.css" {
  const text: string;
  export default text;
}

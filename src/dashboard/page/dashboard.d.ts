// The page's script is served as text (imported with { type: "text" } by routes.ts), never run by the service.
declare const text: string;
export default text;

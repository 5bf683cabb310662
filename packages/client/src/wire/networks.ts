/**
 * The networks relay402 knows, by the name config, routes and answers use, in the order they are listed. The
 * service's presets (src/networks) give each its chain facts, and its type check holds them to exactly these names.
 */
export const NETWORKS = ["bsc", "base", "bsc-testnet", "base-sepolia"] as const;

export type NetworkName = (typeof NETWORKS)[number];

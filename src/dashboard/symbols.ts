import { type Address, erc20Abi } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import type { FlowContext } from "../flow";

// A token's symbol as the page labels its amounts: the config's (the operator's word) for a configured token, else
// what the token's own contract answers (a swap may sell any token). The contract is anyone's: its symbol may carry
// markup or script, so the page sets it as text only (and its CSP runs no inline script).

/** Token symbols the service keeps at most (a swap's sell tokens are unbounded); the oldest goes first. */
export const MAX_CACHED_SYMBOLS = 1_000;
/** Longer symbols are cut: a label, not a document. */
export const MAX_SYMBOL_LENGTH = 64;

export type TokenSymbols = {
  /** The symbols of these tokens of a network (null: the contract has none, or did not answer). */
  of(network: string, tokens: readonly (string | null)[]): Promise<Map<string, string | null>>;
};

export function createTokenSymbols(context: Pick<FlowContext, "networks">): TokenSymbols {
  const cache = new Map<string, Promise<string | null>>();

  async function read(runtime: NetworkRuntime, token: string): Promise<string | null> {
    try {
      const symbol = await runtime.client.readContract({
        address: token as Address,
        abi: erc20Abi,
        functionName: "symbol",
      });
      return typeof symbol === "string" && symbol.length > 0 ? symbol.slice(0, MAX_SYMBOL_LENGTH) : null;
    } catch {
      return null;
    }
  }

  function symbolOf(network: string, token: string): Promise<string | null> {
    const runtime = context.networks.all().find((each) => each.name === network);
    if (!runtime) return Promise.resolve(null);
    const configured = runtime.token(token);
    if (configured) return Promise.resolve(configured.symbol);
    const key = `${network} ${token.toLowerCase()}`;
    let known = cache.get(key);
    if (!known) {
      // A contract that did not answer is asked again next time; an answer is kept.
      known = read(runtime, token).then((symbol) => {
        if (symbol === null) cache.delete(key);
        return symbol;
      });
      if (cache.size >= MAX_CACHED_SYMBOLS) cache.delete(cache.keys().next().value as string);
      cache.set(key, known);
    }
    return known;
  }

  return {
    async of(network, tokens) {
      const wanted = [...new Set(tokens.filter((each): each is string => each !== null))];
      const symbols = await Promise.all(wanted.map((token) => symbolOf(network, token)));
      return new Map(wanted.map((token, i) => [token.toLowerCase(), symbols[i] ?? null]));
    },
  };
}

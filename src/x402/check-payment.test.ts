import { expect, test } from "bun:test";
import {
  type Address,
  encodeDeployData,
  erc6492SignatureValidatorAbi,
  erc6492SignatureValidatorByteCode,
  type Hex,
  toHex,
} from "viem";
import { erc6492ValidatorCall } from "./check-payment";

const random = (bytes: number) => toHex(crypto.getRandomValues(new Uint8Array(bytes)));

test("the validator call for a 65-byte signature is viem's encodeDeployData of the ERC-6492 validator", () => {
  for (let i = 0; i < 20; i++) {
    const from = random(20) as Address;
    const hash = random(32) as Hex;
    const signature = random(65) as Hex;
    expect(erc6492ValidatorCall(from, hash, signature)).toBe(
      encodeDeployData({
        abi: erc6492SignatureValidatorAbi,
        args: [from, hash, signature],
        bytecode: erc6492SignatureValidatorByteCode,
      }),
    );
  }
});

/** Start-up self-check: a document the validator cannot use stops the start naming the file, rather than answering 500 to every caller. */
import { ContractError, contract as shippedContract, loadContract, specPath as shippedSpecPath } from '@session-resume-api/runtime/contract';
import { contractValidatorOptions, type AppDeps } from '../app.js';
import { checkContractValidator } from '../http/contract-validator.js';

/**
 * Rejects with a `ContractError` naming the spec file when the app built with the same options
 * could not use its document. Listens on a loopback port for one request.
 * @example
 * await checkAppContract({ specPath });
 * const app = await createApp({ store, apiKeys, specPath });
 */
export async function checkAppContract(deps: Pick<AppDeps, 'specPath' | 'validateResponses'> = {}): Promise<void> {
  const specFile = deps.specPath ?? shippedSpecPath;
  const document = (deps.specPath === undefined ? shippedContract : loadContract(deps.specPath)).document;
  await checkContractValidator(contractValidatorOptions(deps, document, () => false)).catch((cause: unknown) => {
    throw new ContractError(`${specFile} cannot be used by the request validator: ${(cause as Error).message}`, { cause });
  });
}

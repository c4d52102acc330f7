/**
 * The message of the 422 a rule refuses with, for unit tests of core's validation: anything else
 * (an accepted input, another error) fails the test, the other error rethrown as it was.
 */
import { PetrelError } from '@petrel/contracts';

function refusalMessage(err: unknown): string {
  if (err instanceof PetrelError && err.statusCode === 422) return err.message;
  throw err;
}

const ACCEPTED = 'accepted: a 422 refusal was expected';

/** The message of the 422 `run` throws. */
export function validationRefusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    return refusalMessage(err);
  }
  throw new Error(ACCEPTED);
}

/** The message of the 422 `promise` rejects with. */
export async function validationRefusalOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    return refusalMessage(err);
  }
  throw new Error(ACCEPTED);
}

import { describe, expect, it } from 'vitest';
import { PetrelError } from '@petrel/contracts';
import { toErrorBody } from './errors.js';

describe('toErrorBody', () => {
  it('maps a PetrelError to its own body', () => {
    expect(toErrorBody(new PetrelError('not_found', 'Email not found'))).toEqual({
      statusCode: 404,
      name: 'not_found',
      message: 'Email not found',
    });
  });

  it('keeps an exposed 4xx from a library (body parsing) as a validation error with its status', () => {
    expect(toErrorBody({ status: 400, message: 'Unexpected token' })).toEqual({
      statusCode: 400,
      name: 'validation_error',
      message: 'Unexpected token',
    });
  });

  it('hides anything else behind a 500 without internals', () => {
    expect(toErrorBody(new Error('secret detail'))).toEqual({
      statusCode: 500,
      name: 'internal_server_error',
      message: 'An unexpected error occurred',
    });
    expect(toErrorBody(undefined).statusCode).toBe(500);
  });
});

/**
 * The CLI's OAuth clients command (docs/oauth.md): answers its exit code, throws a readable error.
 */
import { randomBytes } from 'node:crypto';
import { newId, registerOAuthClient } from '@petrel/core';
import type { Runtime } from '@petrel/runtime';
import type { CliOptions } from './cli-commands.js';

/** `oauth-clients list | create | delete`: third-party apps for OAuth (docs/oauth.md). */
export async function oauthClients(
  rt: Runtime,
  command: string,
  arg: string | undefined,
  values: CliOptions,
): Promise<number> {
  switch (command) {
    case 'list':
      for (const c of await rt.stores.oauthClients.list()) {
        const kind = c.confidential ? 'confidential' : 'public';
        console.log(`${c.id}\t${c.name}\t${kind}\t${c.redirect_uris.join(' ')}\t${c.logo_uri ?? '-'}`);
      }
      return 0;
    case 'create': {
      // the same rules as every registration (core's registerOAuthClient): 422-style messages
      const { client, secret } = await registerOAuthClient(
        {
          name: values.name,
          redirect_uris: values['redirect-uri'] ?? [],
          ...(values.logo !== undefined && { logo_uri: values.logo }),
          confidential: values.confidential ?? false,
        },
        {
          clients: rt.stores.oauthClients,
          newId: () => newId(),
          randomSecret: () => randomBytes(32).toString('base64url'),
          clock: Date,
        },
      );
      console.log(`client_id:     ${client.id}\nname:          ${client.name}`);
      console.log(`redirect_uris: ${client.redirect_uris.join(' ')}`);
      if (secret) console.log(`client_secret: ${secret}\n(the secret is shown only now)`);
      return 0;
    }
    case 'delete': {
      if (!arg) throw new Error('oauth-clients delete needs a client id');
      if (!(await rt.stores.oauthClients.delete(arg))) throw new Error(`no OAuth client ${arg}`);
      console.log(`deleted ${arg}`);
      return 0;
    }
  }
  throw new Error(`no command oauth-clients ${command}`);
}

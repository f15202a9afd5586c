/**
 * The client identities kept per issuer: a client ID metadata document URL in use is stored like
 * a registration, found again without the option while the authorization server takes metadata
 * documents (and not after it stopped), and each stored client keeps its source.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type * as oauth from "oauth4webapi";
import { clientIdentity, knownClientIdentity } from "../../src/auth/client-identity.js";
import { AuthHttp } from "../../src/auth/http.js";
import { InMemoryTokenStore } from "../../src/auth/token-store.js";

const DOCUMENT_URL = "https://client.example/mcpwire.json";
const ISSUER = "https://as.example";
const takesDocuments: oauth.AuthorizationServer = {
  issuer: ISSUER,
  client_id_metadata_document_supported: true,
  token_endpoint_auth_methods_supported: ["none"],
};
const request = { redirectUris: ["http://127.0.0.1/callback"], grantTypes: ["authorization_code"] };

describe("client identities kept per issuer", () => {
  it("stores the metadata document URL in use, found again without the option", async () => {
    const store = new InMemoryTokenStore();
    const http = new AuthHttp(undefined, 1_000);
    const used = await clientIdentity(
      http,
      store,
      takesDocuments,
      { clientMetadataUrl: DOCUMENT_URL },
      request,
    );
    assert.equal(used.source, "metadata-document");
    assert.deepEqual(await store.getClient(ISSUER), {
      clientId: DOCUMENT_URL,
      source: "metadata-document",
    });
    const again = await knownClientIdentity(store, takesDocuments, {});
    assert.equal(again?.client.client_id, DOCUMENT_URL);
    assert.equal(again?.source, "metadata-document");
    assert.equal(again?.method, "none");
  });

  it("no longer uses a stored document URL where the server stopped taking them", async () => {
    const store = new InMemoryTokenStore();
    await store.setClient(ISSUER, { clientId: DOCUMENT_URL, source: "metadata-document" });
    const stopped = { ...takesDocuments, client_id_metadata_document_supported: false };
    assert.equal(await knownClientIdentity(store, stopped, {}), undefined);
  });

  it("refuses a stored document URL that is no https URL with a path", async () => {
    const store = new InMemoryTokenStore();
    await store.setClient(ISSUER, {
      clientId: "http://client.example/",
      source: "metadata-document",
    });
    await assert.rejects(
      knownClientIdentity(store, takesDocuments, {}),
      /must be https with a path/,
    );
  });

  it("keeps a stored client's source: pre-registered stays pre-registered", async () => {
    const store = new InMemoryTokenStore();
    await store.setClient(ISSUER, { clientId: "given", source: "pre-registered" });
    assert.equal((await knownClientIdentity(store, takesDocuments, {}))?.source, "pre-registered");
    await store.setClient(ISSUER, { clientId: "dcr-client" });
    assert.equal((await knownClientIdentity(store, takesDocuments, {}))?.source, "registered");
  });
});

from runtime.auth.refresher.oauth2_credential_refresher import OAuth2CredentialRefresher

__all__ = ["OAuth2CredentialRefresher"]

"""Settings from the environment (django-environ). Every variable is listed in docs/configuration.md.

Nothing exists only in production: the same code reads its switches from the environment, and the
embedded default (SQLite, a local-memory cache, a filesystem broker under var/) needs no server.
"""

from __future__ import annotations

import ipaddress
import secrets
from datetime import timedelta
from pathlib import Path

import environ
from django.conf import global_settings
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()
VAR_DIR = Path(env("VAR_DIR", default=str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env.bool("DJANGO_DEBUG", default=False)
VERSION = env("SERVICE_VERSION", default="0.1.0")
ENVIRONMENT = env("SERVICE_ENVIRONMENT", default="development" if DEBUG else "production")


def _dev_secret(name: str, make) -> str:
    """A value generated once into var/ for a developer machine; never with DEBUG off."""
    if not DEBUG:
        raise ImproperlyConfigured(f"{name} must be set when DJANGO_DEBUG is off.")
    path = VAR_DIR / name.lower()
    if not path.exists():
        path.write_text(make())
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = env("DJANGO_SECRET_KEY", default=None) or _dev_secret(
    "DJANGO_SECRET_KEY", lambda: secrets.token_urlsafe(50)
)
VAULT_MASTER_KEYS = env("VAULT_MASTER_KEYS", default=None) or _dev_secret(
    "VAULT_MASTER_KEYS", lambda: "dev1:" + __import__("base64").b64encode(secrets.token_bytes(32)).decode()
)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
# Browser origins (scheme://host[:port]) allowed to POST /mcp besides this host (DESIGN section 16).
MCP_ALLOWED_ORIGINS = env.list("MCP_ALLOWED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    # Its index expressions (OpClass) build the pgvector HNSW indexes; inert on SQLite.
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    # The apps, in the order they may depend on each other (DESIGN section 1): each imports only
    # those above it here.
    "core",
    "identity",
    "oauth2_provider",  # after identity: its admin registers identity.admin.OAuthClientAdmin
    "integrations",
    "vault",
    "knowledge",
    "ingestion",
    "toolhub",
    "ops",
]

MIDDLEWARE = [
    "core.api.request_id.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Sessions, the signed-in user and messages serve the console and the docs' pages; the JSON API
    # never reads them, so they cost it no query and set it no cookie.
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.api.handlers.JsonErrorMiddleware",
    "core.usage.UsageMiddleware",  # usage counters in the cache, per authenticated call
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Database: SQLite under var/ by default, PostgreSQL when DATABASE_URL says so.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The database file is its owner's alone (0600, like the keys beside it in var/), created so
    # before SQLite opens it; SQLite gives its -wal and -shm files the same mode.
    _sqlite_file = Path(DATABASES["default"]["NAME"])
    if _sqlite_file.is_absolute() and _sqlite_file.parent.is_dir():
        _sqlite_file.touch(mode=0o600, exist_ok=True)
    # IMMEDIATE transactions take the write lock up front, so concurrent writers queue instead of
    # failing; WAL lets readers proceed meanwhile.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
else:
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = 3
    if env.bool("DATABASE_PREPARED_STATEMENTS", default=True):
        # Django's own options: parameters bound on the server, and a statement that a connection
        # runs twice is prepared there (parsed and planned once; docs/performance.md). Turn off
        # behind a pooler that cannot keep prepared statements (PgBouncer in transaction mode
        # before 1.21).
        DATABASES["default"]["OPTIONS"] |= {"server_side_binding": True, "prepare_threshold": 2}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "identity.User"
# OAuth client secrets are checked with a keyed hash (identity/hashers.py), listed after the defaults.
PASSWORD_HASHERS = [*global_settings.PASSWORD_HASHERS, "identity.hashers.ClientSecretHasher"]

# The OAuth 2 provider (django-oauth-toolkit; identity/provider.py, docs/oauth.md).
OAUTH2_PROVIDER_APPLICATION_MODEL = "identity.OAuthClient"
OAUTH2_PROVIDER = {
    "OAUTH2_SERVER_CLASS": "identity.provider.Server",
    "OAUTH2_VALIDATOR_CLASS": "identity.provider.Validator",
    "SCOPES_BACKEND_CLASS": "identity.provider.ClientScopes",
    "ACCESS_TOKEN_GENERATOR": "identity.provider.access_token_generate",
    "REFRESH_TOKEN_GENERATOR": "identity.provider.refresh_token_generate",
    "APPLICATION_ADMIN_CLASS": "identity.admin.OAuthClientAdmin",
    "CLIENT_SECRET_HASHER": "oauth_keyed",
    "PKCE_REQUIRED": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,  # S256 only
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,  # tokens stored as SHA-256 checksums only
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,  # never a token in a query string
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_EXPIRE_SECONDS": 90 * 86400,  # the cap; each client's own lifetime is shorter
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "REQUEST_APPROVAL_PROMPT": "force",
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,  # no implicit grant
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,  # no resource-owner password grant
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,  # `iss` on the authorization response (RFC 9207)
    # An authorization code never travels in plain text, but to a loopback address, where a native
    # application listens on a port of its choosing (RFC 8252 section 7.3): OAuthClient lets http
    # through for the clients that registered a loopback address, and only to it.
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https"],
    "ALLOW_LOCALHOST_LOOPBACK": True,  # "localhost" too matches on any port (DESIGN section 16)
    # What the metadata documents (RFC 8414, RFC 9728) say the provider serves.
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "client_credentials", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["client_secret_basic", "client_secret_post", "none"],
    "OAUTH2_PROTECTED_RESOURCE_BEARER_METHODS_SUPPORTED": ["header"],
    # Clients that register themselves (RFC 7591, identity.apis.registration: public clients, no
    # tenant) and clients known by the URL of their metadata document, fetched through the
    # outbound guard (identity/cimd.py) and kept an hour.
    "DCR_ENABLED": True,
    "CIMD_ENABLED": True,
    "CIMD_METADATA_FETCHER": "identity.cimd.MetadataDocumentFetcher",
    "CIMD_METADATA_MAX_AGE_SECONDS": 3600,
}

REDIS_URL = env("REDIS_URL", default=None)
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env("CACHE_KEY_PREFIX", default="ips"),
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "ips"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
FORMAT_MODULE_PATH = ["core.formats"]  # one way to write a date and a time on every console page
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Serve the admin's and the docs' assets from the installed packages even without collectstatic.
WHITENOISE_USE_FINDERS = True

# Limits of DESIGN section 12.
API_MAX_BODY_BYTES = 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = API_MAX_BODY_BYTES

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "identity.authentication.ApiKeyAuthentication",
        "identity.authentication.OAuthTokenAuthentication",
        "identity.authentication.RealmJwtAuthentication",
        "identity.authentication.JwtAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["core.api.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["core.api.parsers.StrictJSONParser"],
    "EXCEPTION_HANDLER": "core.api.exception_handler.api_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "core.api.schema.ApiAutoSchema",
    "UNAUTHENTICATED_USER": None,
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SIMPLE_JWT = {
    "ALGORITHM": "HS256",
    "SIGNING_KEY": env("JWT_SIGNING_KEY", default=None) or SECRET_KEY,
    "AUDIENCE": env("JWT_AUDIENCE", default="integration-platform-api"),
    "ISSUER": env("JWT_ISSUER", default="integration-platform"),
    "ACCESS_TOKEN_LIFETIME": timedelta(minutes=env.int("JWT_ACCESS_MINUTES", default=30)),
    "REFRESH_TOKEN_LIFETIME": timedelta(hours=env.int("JWT_REFRESH_HOURS", default=24)),
    "AUTH_HEADER_TYPES": ("Bearer",),
    "USER_ID_FIELD": "id",
    "USER_ID_CLAIM": "sub",
    "UPDATE_LAST_LOGIN": True,
    "LEEWAY": 0,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Integration Platform API",
    "DESCRIPTION": (
        "Credential vault, knowledge-source listing, failed-ingestion records and tool execution. "
        "Authenticated calls send `Authorization: Bearer <JWT | API key | OAuth token>` (or `X-API-Key`) "
        "and `x-tenantid`."
    ),
    "VERSION": VERSION,
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # PATCH bodies are checked whole (no serializer runs partial): their required fields stay required.
    "COMPONENT_SPLIT_PATCH": False,
    # drf-spectacular's own enum hook, then: bodies that refuse undeclared fields say so, and request
    # text says it holds no NUL character.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.api.schema.closed_objects",
        "core.api.schema.no_nul_strings",
    ],
    # The platforms that ingestion reads (search, retry, configurations): one choice set, one name.
    "ENUM_NAME_OVERRIDES": {
        "IngestionPlatformEnum": "knowledge.models.PLATFORM_TYPES",
        "ActiveOrInactiveEnum": ["active", "inactive"],  # what a PATCH sets a status to
        "GrantTypeEnum": "identity.provider.GRANT_TYPES",
        "RegisteredGrantTypeEnum": "identity.services.registration.REGISTRATION_GRANTS",
    },
    # The docs' sections, in this order, each with its description (tests/test_openapi_schema.py
    # holds every operation to a summary and a declared tag, and every tag to an operation).
    "TAGS": [
        {"name": "auth", "description": "Tokens: user JWTs and OAuth client-credentials access tokens."},
        {"name": "health", "description": "Liveness and dependency health, without the envelope."},
        {"name": "vault", "description": "The encrypted credential store (`docs/vault.md`)."},
        {"name": "api-keys", "description": "The tenant's API keys: create, rotate, revoke, validate."},
        {"name": "oauth-clients", "description": "OAuth clients of this service's token endpoint."},
        {"name": "admin", "description": "Tenants, service accounts, audit logs, jobs and data keys."},
        {"name": "tools", "description": "The tool registry and execution (`docs/toolhub.md`)."},
        {"name": "connections", "description": "Tenant connections to vendor systems, used by tools."},
        {"name": "approvals", "description": "The approval queue of gated tool calls."},
        {
            "name": "knowledge",
            "description": "/v2 listings of the knowledge sources a tenant can ingest, and search.",
        },
        {"name": "ingestion", "description": "/v2 failed-ingestion records (`docs/ingestion.md`)."},
    ],
}

# Celery: Redis when configured, else an embedded filesystem broker under var/ (no server needed).
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=None) or REDIS_URL or "filesystem://"
CELERY_BROKER_DIR = VAR_DIR / "celery"
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT = "core.broker:Transport"  # kombu's, with each message written whole
    for _folder in ("queue", "processed", "control"):
        (CELERY_BROKER_DIR / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_BROKER_DIR / "queue"),
        "data_folder_out": str(CELERY_BROKER_DIR / "queue"),
        "processed_folder": str(CELERY_BROKER_DIR / "processed"),
        "control_folder": str(CELERY_BROKER_DIR / "control"),
        "store_processed": False,
    }
else:
    # Redis: a message taken by a worker that died unacknowledged goes back to the queue after this
    # many seconds (docs/configuration.md); keep it above the longest task. Every worker looks for
    # such messages every 10 s (kombu's default throttle would make that every 100 s).
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600),
        "unacked_restore_interval": 10,
        "unacked_restore_throttle": 1,
        "socket_connect_timeout": 2,
    }
# A broker that is down (Redis restarting) is waited for, at start and while running, however long
# it takes: the worker keeps retrying (Celery's intervals) instead of giving up after 100 tries.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = "UTC"
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# Outbound calls (DESIGN section 11) and vendor endpoints.
OUTBOUND_ALLOW_PRIVATE_NETWORKS = env.bool("OUTBOUND_ALLOW_PRIVATE_NETWORKS", default=False)
# Loopback or private networks that outbound calls may reach (CIDRs, e.g. 10.20.0.0/16); cloud metadata
# addresses are refused whatever these say (docs/security.md).
OUTBOUND_ALLOWED_NETWORKS = env.list("OUTBOUND_ALLOWED_NETWORKS", default=[])
try:
    [ipaddress.ip_network(network, strict=False) for network in OUTBOUND_ALLOWED_NETWORKS]
except ValueError as exc:
    raise ImproperlyConfigured(f"OUTBOUND_ALLOWED_NETWORKS: {exc}") from None
OUTBOUND_CA_BUNDLE = env("OUTBOUND_CA_BUNDLE", default=None)
# Identity realms (DESIGN section 17): clock leeway for exp/nbf/iat, how long an issuer's keys are
# cached, and how often an unknown `kid` may make a realm's keys be read again.
REALM_JWT_LEEWAY_SECONDS = env.int("REALM_JWT_LEEWAY_SECONDS", default=60)
REALM_JWKS_CACHE_SECONDS = env.int("REALM_JWKS_CACHE_SECONDS", default=3600)
REALM_JWKS_REFETCH_SECONDS = env.int("REALM_JWKS_REFETCH_SECONDS", default=60)
SITELIB_LOGIN_URL = env("SITELIB_LOGIN_URL", default="https://login.microsoftonline.com")
SITELIB_GRAPH_URL = env("SITELIB_GRAPH_URL", default="https://graph.microsoft.com/v1.0")

# Failed-ingestion store (DESIGN section 10).
FAILED_FILES_BACKEND = env("FAILED_FILES_BACKEND", default="orm")
AZURE_TABLES_CONNECTION_STRING = env("AZURE_TABLES_CONNECTION_STRING", default=None)
FAILED_FILES_TABLE = env("FAILED_FILES_TABLE", default="FailedIngestions")
FAILED_FILES_RETENTION_DAYS = env.int("FAILED_FILES_RETENTION_DAYS", default=30)

# Ingestion runs (DESIGN section 15, docs/ingestion.md).
# Source permissions (DESIGN section 19, docs/knowledge.md "Who sees what"): how long a user's
# groups looked up in the tenant's platforms are kept, and how often each configuration's readers
# are read again at the latest.
PERMISSIONS_CACHE_MINUTES = env.int("PERMISSIONS_CACHE_MINUTES", default=15)
PERMISSIONS_RESYNC_MINUTES = env.int("PERMISSIONS_RESYNC_MINUTES", default=15)
INGEST_MAX_FILE_MB = env.int("INGEST_MAX_FILE_MB", default=50)
INGEST_DOWNLOAD_TIMEOUT_S = env.float("INGEST_DOWNLOAD_TIMEOUT_S", default=60.0)
# A worker holds its run this long past its last finished document; a run whose holder stopped
# renewing is taken over (resumed) by the next worker that gets its task or by the dataSync job.
INGEST_RUN_LEASE_S = env.int("INGEST_RUN_LEASE_S", default=900)
INGEST_EMBED_BATCH = env.int("INGEST_EMBED_BATCH", default=64)

# Embeddings (DESIGN section 15, knowledge/embeddings.py): `local` (all-MiniLM-L6-v2 on the CPU,
# from the installed package, offline), `openai` (an OpenAI-compatible server), `hash` (tests only).
EMBEDDING_BACKEND = env("EMBEDDING_BACKEND", default="local")
if EMBEDDING_BACKEND not in ("local", "openai", "hash"):
    raise ImproperlyConfigured("EMBEDDING_BACKEND must be local, openai or hash.")
EMBEDDING_MODEL_DIR = env("EMBEDDING_MODEL_DIR", default=None)  # local: the package's copy
EMBEDDING_URL = env("EMBEDDING_URL", default=None)  # openai: the API root, e.g. http://host:8080/v1
EMBEDDING_MODEL = env("EMBEDDING_MODEL", default=None)
EMBEDDING_API_KEY = env("EMBEDDING_API_KEY", default=None)
if EMBEDDING_BACKEND == "openai" and not (EMBEDDING_URL and EMBEDDING_MODEL):
    raise ImproperlyConfigured("EMBEDDING_BACKEND=openai needs EMBEDDING_URL and EMBEDDING_MODEL.")
EMBEDDING_BATCH_SIZE = env.int("EMBEDDING_BATCH_SIZE", default=32)
EMBEDDING_TIMEOUT_S = env.float("EMBEDDING_TIMEOUT_S", default=60.0)

# Ingestion pipeline (DESIGN section 15). Extraction parses each file in a child process that is
# killed past this wall-clock time and cannot map more than this memory (docs/ingestion.md).
INGEST_EXTRACT_TIMEOUT_S = env.float("INGEST_EXTRACT_TIMEOUT_S", default=60.0)
INGEST_EXTRACT_MEMORY_MB = env.int("INGEST_EXTRACT_MEMORY_MB", default=1024)
# Chunks are counted in the embedding model's word pieces; all-MiniLM-L6-v2 reads at most 256,
# two of which are its start and end markers.
INGEST_CHUNK_TOKENS = env.int("INGEST_CHUNK_TOKENS", default=200)
INGEST_CHUNK_OVERLAP = env.int("INGEST_CHUNK_OVERLAP", default=20)
if not 1 <= INGEST_CHUNK_TOKENS <= 254:
    raise ImproperlyConfigured("INGEST_CHUNK_TOKENS must be between 1 and 254.")
if not 0 <= INGEST_CHUNK_OVERLAP < INGEST_CHUNK_TOKENS:
    raise ImproperlyConfigured("INGEST_CHUNK_OVERLAP must be at least 0 and below INGEST_CHUNK_TOKENS.")

# The vector store on PostgreSQL (docs/ingestion.md, "Vector store"): pgvector's HNSW candidate
# list per search; larger finds the true nearest chunks more often and costs more time.
VECTOR_HNSW_EF_SEARCH = env.int("VECTOR_HNSW_EF_SEARCH", default=100)

# Rate limits, idempotency and approvals.
RATE_LIMIT_PER_KEY = env("RATE_LIMIT_PER_KEY", default="600/m")
RATE_LIMIT_PER_TENANT = env("RATE_LIMIT_PER_TENANT", default="3000/m")
RATE_LIMIT_LOGIN = env("RATE_LIMIT_LOGIN", default="20/m")
RATE_LIMIT_CLIENT_REGISTRATION = env("RATE_LIMIT_CLIENT_REGISTRATION", default="20/h")
IDEMPOTENCY_RETENTION_HOURS = env.int("IDEMPOTENCY_RETENTION_HOURS", default=24)
APPROVAL_TTL_HOURS = env.int("APPROVAL_TTL_HOURS", default=24)
# A running idempotent call may be taken over this long after its connector's worst-case time.
TOOLHUB_LEASE_MARGIN_SECONDS = env.float("TOOLHUB_LEASE_MARGIN_SECONDS", default=30.0)
AUDIT_HMAC_KEY = env("AUDIT_HMAC_KEY", default=None) or SECRET_KEY
# Chains per tenant: concurrent audited changes of one tenant each take a free chain head.
AUDIT_CHAIN_STRIPES = env.int("AUDIT_CHAIN_STRIPES", default=8)
if not 1 <= AUDIT_CHAIN_STRIPES <= 99:  # a chain name is the tenant id and ".NN" (40 characters)
    raise ImproperlyConfigured("AUDIT_CHAIN_STRIPES must be between 1 and 99.")
# The auditLogArchive job moves entries older than this into compressed files under this directory.
AUDIT_ARCHIVE_AFTER_DAYS = env.int("AUDIT_ARCHIVE_AFTER_DAYS", default=365)
AUDIT_ARCHIVE_DIR = Path(env("AUDIT_ARCHIVE_DIR", default=str(VAR_DIR / "audit-archive")))
# A tenant's storage quota unless its settings name one (`storageQuotaMB`).
TENANT_STORAGE_QUOTA_MB = env.int("TENANT_STORAGE_QUOTA_MB", default=1024)

# The load harness's baseline endpoints (bench/views.py); never on in production.
BENCH_ENDPOINTS = env.bool("BENCH_ENDPOINTS", default=False)

# Security headers and cookies; see docs/configuration.md.
SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# HTTPS switches for production behind TLS (off by default so `make run` works over plain http).
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=False)
# Load-balancer probes often speak plain http to the instance: health never redirects.
SECURE_REDIRECT_EXEMPT = [r"^health$", r"^api/v1/health$"]
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=False)
if env.bool("DJANGO_TRUST_X_FORWARDED_PROTO", default=False):
    # Only behind a proxy that sets (and strips client-sent) X-Forwarded-Proto.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "core.logging.RequestIdFilter"}},
    "formatters": {"json": {"()": "core.logging.JsonFormatter"}},
    "handlers": {
        "stdout": {"class": "logging.StreamHandler", "formatter": "json", "filters": ["request_id"]},
    },
    "root": {"handlers": ["stdout"], "level": env("DJANGO_LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.server": {"level": "WARNING"},
        "django.db.backends": {"level": "WARNING"},
    },
}

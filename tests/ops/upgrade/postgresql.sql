-- A database made by the last release with the adminops app (commit b9f573d): migrate, seed_demo,
-- then a row in every table seed_demo leaves empty. tests/ops/test_upgrade.py migrates a copy of it.
--
-- PostgreSQL database dump
--


-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: vector; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;


--
-- Name: vault_credential_tally(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.vault_credential_tally() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status <> 'deleted' THEN
    UPDATE vault_credentialtally SET live = live - 1
     WHERE tenant_id = OLD.tenant_id AND slot = get_byte(uuid_send(OLD.id), 15) % 16;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.status <> 'deleted' THEN
    INSERT INTO vault_credentialtally (tenant_id, slot, live)
    VALUES (NEW.tenant_id, get_byte(uuid_send(NEW.id), 15) % 16, 1)
    ON CONFLICT (tenant_id, slot) DO UPDATE SET live = vault_credentialtally.live + 1;
  END IF;
  RETURN NULL;
END
$$;


--
-- Name: vault_credential_tally_truncate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.vault_credential_tally_truncate() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  DELETE FROM vault_credentialtally;
  RETURN NULL;
END
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: adminops_apikey; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_apikey (
    id uuid NOT NULL,
    name character varying(255) NOT NULL,
    description text NOT NULL,
    prefix character varying(16) NOT NULL,
    key_hash character varying(64) NOT NULL,
    scopes jsonb NOT NULL,
    tool_patterns jsonb NOT NULL,
    protocol character varying(16) NOT NULL,
    ip_whitelist jsonb NOT NULL,
    environment character varying(8) NOT NULL,
    status character varying(16) NOT NULL,
    expires_at timestamp with time zone,
    last_used_at timestamp with time zone,
    usage_count bigint NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone,
    created_by_id uuid,
    updated_by_id uuid,
    tenant_id uuid NOT NULL,
    failure_count bigint NOT NULL,
    first_used_at timestamp with time zone,
    last_rotated_at timestamp with time zone,
    last_used_ip character varying(45) NOT NULL,
    previous_key_hash character varying(64) NOT NULL,
    previous_prefix character varying(16) NOT NULL,
    previous_valid_until timestamp with time zone,
    revoked_at timestamp with time zone,
    revoked_by jsonb NOT NULL,
    rotated_by_id uuid,
    rotation_count integer NOT NULL,
    success_count bigint NOT NULL,
    connections jsonb NOT NULL
);


--
-- Name: adminops_auditarchive; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_auditarchive (
    id uuid NOT NULL,
    chain character varying(40) NOT NULL,
    tenant_id uuid,
    first_seq bigint NOT NULL,
    last_seq bigint NOT NULL,
    prev_hash character varying(64) NOT NULL,
    last_hash character varying(64) NOT NULL,
    entries integer NOT NULL,
    first_timestamp timestamp with time zone NOT NULL,
    last_timestamp timestamp with time zone NOT NULL,
    path character varying(300) NOT NULL,
    sha256 character varying(64) NOT NULL,
    size_bytes bigint NOT NULL,
    job_run_id uuid,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: adminops_auditchainhead; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_auditchainhead (
    chain character varying(40) NOT NULL,
    seq bigint NOT NULL,
    last_hash character varying(64) NOT NULL
);


--
-- Name: adminops_auditentry; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_auditentry (
    id uuid NOT NULL,
    chain character varying(40) NOT NULL,
    seq bigint NOT NULL,
    tenant_id uuid,
    action character varying(64) NOT NULL,
    category character varying(32) NOT NULL,
    actor jsonb NOT NULL,
    actor_id character varying(64) NOT NULL,
    resource jsonb NOT NULL,
    resource_type character varying(64) NOT NULL,
    details jsonb NOT NULL,
    status character varying(8) NOT NULL,
    request_id character varying(128) NOT NULL,
    "timestamp" timestamp with time zone NOT NULL,
    prev_hash character varying(64) NOT NULL,
    hash character varying(64) NOT NULL
);


--
-- Name: adminops_identityrealm; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_identityrealm (
    id uuid NOT NULL,
    name character varying(255) NOT NULL,
    issuer character varying(500) NOT NULL,
    audience character varying(255) NOT NULL,
    jwks_url character varying(500) NOT NULL,
    username_claim character varying(255) NOT NULL,
    roles_claim character varying(255) NOT NULL,
    role_mapping jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL,
    created_by jsonb NOT NULL,
    updated_at timestamp with time zone,
    updated_by jsonb NOT NULL,
    tenant_id uuid NOT NULL
);


--
-- Name: adminops_jobrun; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_jobrun (
    id uuid NOT NULL,
    job_name character varying(64) NOT NULL,
    status character varying(16) NOT NULL,
    tenant_id uuid,
    params jsonb NOT NULL,
    triggered_by jsonb NOT NULL,
    queued_at timestamp with time zone NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    items integer NOT NULL,
    outcome text NOT NULL,
    duration_ms integer,
    attempts integer NOT NULL
);


--
-- Name: adminops_membership; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_membership (
    id bigint NOT NULL,
    roles jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL,
    user_id uuid NOT NULL,
    tenant_id uuid NOT NULL
);


--
-- Name: adminops_membership_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.adminops_membership ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.adminops_membership_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: adminops_oauthclient; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_oauthclient (
    id uuid NOT NULL,
    name character varying(255) NOT NULL,
    description text NOT NULL,
    client_id character varying(64) NOT NULL,
    client_type character varying(16) NOT NULL,
    redirect_uris jsonb NOT NULL,
    grant_types jsonb NOT NULL,
    scopes jsonb NOT NULL,
    tool_patterns jsonb NOT NULL,
    allowed_origins jsonb NOT NULL,
    ip_whitelist jsonb NOT NULL,
    status character varying(16) NOT NULL,
    token_requests bigint NOT NULL,
    successful_token_requests bigint NOT NULL,
    failed_token_requests bigint NOT NULL,
    first_used_at timestamp with time zone,
    last_used_at timestamp with time zone,
    last_used_ip character varying(45) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    created_by jsonb NOT NULL,
    updated_at timestamp with time zone,
    updated_by jsonb NOT NULL,
    last_secret_rotated_at timestamp with time zone,
    secret_rotation_count integer NOT NULL,
    deleted_at timestamp with time zone,
    deleted_by jsonb NOT NULL,
    tenant_id uuid NOT NULL,
    algorithm character varying(5) NOT NULL,
    cimd_expires_at timestamp with time zone,
    client_secret character varying(255) NOT NULL,
    created timestamp with time zone NOT NULL,
    hash_client_secret boolean NOT NULL,
    post_logout_redirect_uris text NOT NULL,
    registration_source character varying(32) NOT NULL,
    skip_authorization boolean NOT NULL,
    token_settings jsonb NOT NULL,
    updated timestamp with time zone NOT NULL,
    user_id uuid
);


--
-- Name: adminops_serviceaccount; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_serviceaccount (
    id uuid NOT NULL,
    name character varying(255) NOT NULL,
    permissions jsonb NOT NULL,
    status character varying(16) NOT NULL,
    last_used_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    created_by jsonb NOT NULL,
    tenant_id uuid NOT NULL,
    oauth_client_id uuid NOT NULL
);


--
-- Name: adminops_tenant; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_tenant (
    id uuid NOT NULL,
    name character varying(255) NOT NULL,
    display_name character varying(255) NOT NULL,
    domain character varying(255) NOT NULL,
    server_url character varying(500) NOT NULL,
    realm_name character varying(255) NOT NULL,
    status character varying(16) NOT NULL,
    settings jsonb NOT NULL,
    subscription jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: adminops_usagereport; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_usagereport (
    id uuid NOT NULL,
    period_start timestamp with time zone NOT NULL,
    period_end timestamp with time zone NOT NULL,
    complete boolean NOT NULL,
    content jsonb NOT NULL,
    generated_at timestamp with time zone NOT NULL,
    job_run_id uuid,
    tenant_id uuid NOT NULL
);


--
-- Name: adminops_user; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_user (
    password character varying(128) NOT NULL,
    last_login timestamp with time zone,
    is_superuser boolean NOT NULL,
    username character varying(150) NOT NULL,
    first_name character varying(150) NOT NULL,
    last_name character varying(150) NOT NULL,
    email character varying(254) NOT NULL,
    is_staff boolean NOT NULL,
    is_active boolean NOT NULL,
    date_joined timestamp with time zone NOT NULL,
    id uuid NOT NULL
);


--
-- Name: adminops_user_groups; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_user_groups (
    id bigint NOT NULL,
    user_id uuid NOT NULL,
    group_id integer NOT NULL
);


--
-- Name: adminops_user_groups_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.adminops_user_groups ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.adminops_user_groups_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: adminops_user_user_permissions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adminops_user_user_permissions (
    id bigint NOT NULL,
    user_id uuid NOT NULL,
    permission_id integer NOT NULL
);


--
-- Name: adminops_user_user_permissions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.adminops_user_user_permissions ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.adminops_user_user_permissions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: auth_group; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_group (
    id integer NOT NULL,
    name character varying(150) NOT NULL
);


--
-- Name: auth_group_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.auth_group ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.auth_group_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: auth_group_permissions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_group_permissions (
    id bigint NOT NULL,
    group_id integer NOT NULL,
    permission_id integer NOT NULL
);


--
-- Name: auth_group_permissions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.auth_group_permissions ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.auth_group_permissions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: auth_permission; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_permission (
    id integer NOT NULL,
    name character varying(255) NOT NULL,
    content_type_id integer NOT NULL,
    codename character varying(100) NOT NULL
);


--
-- Name: auth_permission_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.auth_permission ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.auth_permission_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: django_admin_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.django_admin_log (
    id integer NOT NULL,
    action_time timestamp with time zone NOT NULL,
    object_id text,
    object_repr character varying(200) NOT NULL,
    action_flag smallint NOT NULL,
    change_message text NOT NULL,
    content_type_id integer,
    user_id uuid NOT NULL,
    CONSTRAINT django_admin_log_action_flag_check CHECK ((action_flag >= 0))
);


--
-- Name: django_admin_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.django_admin_log ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.django_admin_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: django_content_type; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.django_content_type (
    id integer NOT NULL,
    app_label character varying(100) NOT NULL,
    model character varying(100) NOT NULL
);


--
-- Name: django_content_type_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.django_content_type ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.django_content_type_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: django_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.django_migrations (
    id bigint NOT NULL,
    app character varying(255) NOT NULL,
    name character varying(255) NOT NULL,
    applied timestamp with time zone NOT NULL
);


--
-- Name: django_migrations_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.django_migrations ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.django_migrations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: django_session; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.django_session (
    session_key character varying(40) NOT NULL,
    session_data text NOT NULL,
    expire_date timestamp with time zone NOT NULL
);


--
-- Name: ingestion_failedfilerow; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ingestion_failedfilerow (
    id bigint NOT NULL,
    tenant_id character varying(64) NOT NULL,
    content_type character varying(32) NOT NULL,
    file_key character varying(64) NOT NULL,
    file_id text NOT NULL,
    platform_domain character varying(255) NOT NULL,
    file_name text NOT NULL,
    source_url text NOT NULL,
    error_type character varying(32) NOT NULL,
    error_message text NOT NULL,
    failed_at timestamp with time zone NOT NULL,
    retry_count integer NOT NULL,
    CONSTRAINT ingestion_failedfilerow_retry_count_check CHECK ((retry_count >= 0))
);


--
-- Name: ingestion_failedfilerow_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.ingestion_failedfilerow ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.ingestion_failedfilerow_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: ingestion_syncconfiguration; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ingestion_syncconfiguration (
    id uuid NOT NULL,
    platform character varying(16) NOT NULL,
    name character varying(255) NOT NULL,
    integration_id character varying(255) NOT NULL,
    platform_domain character varying(255) NOT NULL,
    scope jsonb NOT NULL,
    content_restriction jsonb NOT NULL,
    use_ocr boolean NOT NULL,
    processor_mode character varying(8) NOT NULL,
    interval_minutes integer,
    enabled boolean NOT NULL,
    last_sync timestamp with time zone,
    delta_tokens jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    tenant_id uuid NOT NULL,
    CONSTRAINT ingestion_syncconfiguration_interval_minutes_check CHECK ((interval_minutes >= 0))
);


--
-- Name: ingestion_syncrun; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ingestion_syncrun (
    id uuid NOT NULL,
    job_id character varying(255) NOT NULL,
    kind character varying(16) NOT NULL,
    status character varying(16) NOT NULL,
    incremental boolean NOT NULL,
    window_start timestamp with time zone,
    window_end timestamp with time zone,
    discovered integer NOT NULL,
    processed integer NOT NULL,
    succeeded integer NOT NULL,
    skipped integer NOT NULL,
    failed integer NOT NULL,
    chunks_written integer NOT NULL,
    vectors_removed integer NOT NULL,
    error text NOT NULL,
    queued_at timestamp with time zone NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    attempts integer NOT NULL,
    lease_holder character varying(64) NOT NULL,
    lease_expires_at timestamp with time zone,
    stop_requested boolean NOT NULL,
    triggered_by jsonb NOT NULL,
    configuration_id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    retry_items jsonb NOT NULL,
    CONSTRAINT ingestion_syncrun_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT ingestion_syncrun_chunks_written_check CHECK ((chunks_written >= 0)),
    CONSTRAINT ingestion_syncrun_discovered_check CHECK ((discovered >= 0)),
    CONSTRAINT ingestion_syncrun_failed_check CHECK ((failed >= 0)),
    CONSTRAINT ingestion_syncrun_processed_check CHECK ((processed >= 0)),
    CONSTRAINT ingestion_syncrun_skipped_check CHECK ((skipped >= 0)),
    CONSTRAINT ingestion_syncrun_succeeded_check CHECK ((succeeded >= 0)),
    CONSTRAINT ingestion_syncrun_vectors_removed_check CHECK ((vectors_removed >= 0))
);


--
-- Name: ingestion_syncrunitem; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ingestion_syncrunitem (
    id bigint NOT NULL,
    item_key character varying(512) NOT NULL,
    name text NOT NULL,
    source_url text NOT NULL,
    outcome character varying(16) NOT NULL,
    error_type character varying(32) NOT NULL,
    error_message text NOT NULL,
    chunks_written integer NOT NULL,
    finished_at timestamp with time zone NOT NULL,
    run_id uuid NOT NULL,
    content_type character varying(32) NOT NULL,
    CONSTRAINT ingestion_syncrunitem_chunks_written_check CHECK ((chunks_written >= 0))
);


--
-- Name: ingestion_syncrunitem_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.ingestion_syncrunitem ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.ingestion_syncrunitem_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: knowledge_chunk; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.knowledge_chunk (
    id bigint NOT NULL,
    ordinal integer NOT NULL,
    text text NOT NULL,
    model character varying(200) NOT NULL,
    dimension integer NOT NULL,
    audience text NOT NULL,
    embedding public.vector NOT NULL,
    tenant_id uuid NOT NULL,
    document_id uuid NOT NULL,
    readers text NOT NULL,
    CONSTRAINT chunk_dimension_positive CHECK ((dimension > 0)),
    CONSTRAINT chunk_text_not_empty CHECK ((NOT (text = ''::text))),
    CONSTRAINT knowledge_chunk_dimension_check CHECK ((dimension >= 0)),
    CONSTRAINT knowledge_chunk_ordinal_check CHECK ((ordinal >= 0))
);


--
-- Name: knowledge_chunk_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.knowledge_chunk ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.knowledge_chunk_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: knowledge_document; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.knowledge_document (
    id uuid NOT NULL,
    platform_type character varying(16) NOT NULL,
    content_type character varying(32) NOT NULL,
    source_id character varying(512) NOT NULL,
    source_url text NOT NULL,
    source_url_key text NOT NULL,
    title text NOT NULL,
    content_hash character varying(64) NOT NULL,
    audience jsonb NOT NULL,
    metadata jsonb NOT NULL,
    sync_configuration_id character varying(64) NOT NULL,
    chunk_count integer NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    tenant_id uuid NOT NULL,
    readers jsonb NOT NULL,
    CONSTRAINT knowledge_document_chunk_count_check CHECK ((chunk_count >= 0))
);


--
-- Name: knowledge_sourcerule; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.knowledge_sourcerule (
    id uuid NOT NULL,
    kind character varying(8) NOT NULL,
    target character varying(8) NOT NULL,
    value character varying(2048) NOT NULL,
    audiences jsonb NOT NULL,
    note character varying(500) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    tenant_id uuid NOT NULL
);


--
-- Name: oauth2_provider_accesstoken; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth2_provider_accesstoken (
    id bigint NOT NULL,
    token text NOT NULL,
    expires timestamp with time zone NOT NULL,
    scope text NOT NULL,
    application_id uuid,
    user_id uuid,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL,
    source_refresh_token_id bigint,
    id_token_id bigint,
    token_checksum character varying(64) NOT NULL,
    resource jsonb NOT NULL
);


--
-- Name: oauth2_provider_accesstoken_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.oauth2_provider_accesstoken ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.oauth2_provider_accesstoken_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: oauth2_provider_devicegrant; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth2_provider_devicegrant (
    id bigint NOT NULL,
    device_code character varying(100) NOT NULL,
    user_code character varying(100) NOT NULL,
    scope text NOT NULL,
    "interval" integer NOT NULL,
    expires timestamp with time zone NOT NULL,
    status character varying(64) NOT NULL,
    client_id character varying(100) NOT NULL,
    last_checked timestamp with time zone NOT NULL,
    user_id uuid
);


--
-- Name: oauth2_provider_devicegrant_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.oauth2_provider_devicegrant ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.oauth2_provider_devicegrant_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: oauth2_provider_grant; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth2_provider_grant (
    id bigint NOT NULL,
    code character varying(255) NOT NULL,
    expires timestamp with time zone NOT NULL,
    redirect_uri text NOT NULL,
    scope text NOT NULL,
    application_id uuid NOT NULL,
    user_id uuid NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL,
    code_challenge character varying(128) NOT NULL,
    code_challenge_method character varying(10) NOT NULL,
    nonce character varying(255) NOT NULL,
    claims text NOT NULL,
    resource jsonb NOT NULL
);


--
-- Name: oauth2_provider_grant_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.oauth2_provider_grant ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.oauth2_provider_grant_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: oauth2_provider_idtoken; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth2_provider_idtoken (
    id bigint NOT NULL,
    jti uuid NOT NULL,
    expires timestamp with time zone NOT NULL,
    scope text NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL,
    application_id uuid,
    user_id uuid
);


--
-- Name: oauth2_provider_idtoken_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.oauth2_provider_idtoken ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.oauth2_provider_idtoken_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: oauth2_provider_refreshtoken; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth2_provider_refreshtoken (
    id bigint NOT NULL,
    token text NOT NULL,
    access_token_id bigint,
    application_id uuid NOT NULL,
    user_id uuid NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL,
    revoked timestamp with time zone,
    token_family uuid,
    token_checksum character varying(64) NOT NULL,
    resource jsonb NOT NULL
);


--
-- Name: oauth2_provider_refreshtoken_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.oauth2_provider_refreshtoken ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.oauth2_provider_refreshtoken_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: toolhub_approval; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.toolhub_approval (
    id uuid NOT NULL,
    tool_key character varying(128) NOT NULL,
    risk_level character varying(16) NOT NULL,
    idempotency_key character varying(255) NOT NULL,
    fingerprint character varying(64) NOT NULL,
    input_redacted jsonb NOT NULL,
    requester jsonb NOT NULL,
    requester_key character varying(200) NOT NULL,
    requester_owner_id character varying(64) NOT NULL,
    status character varying(16) NOT NULL,
    reason text NOT NULL,
    decided_by jsonb NOT NULL,
    decided_at timestamp with time zone,
    executed_at timestamp with time zone,
    expires_at timestamp with time zone NOT NULL,
    request_id character varying(128) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    tenant_id uuid NOT NULL,
    connection_id uuid,
    channel character varying(8) NOT NULL
);


--
-- Name: toolhub_approvalpolicy; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.toolhub_approvalpolicy (
    id bigint NOT NULL,
    gated_risk_levels jsonb NOT NULL,
    always_gate jsonb NOT NULL,
    never_gate jsonb NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    tenant_id uuid NOT NULL
);


--
-- Name: toolhub_approvalpolicy_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.toolhub_approvalpolicy ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.toolhub_approvalpolicy_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: toolhub_connection; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.toolhub_connection (
    id uuid NOT NULL,
    name character varying(255) NOT NULL,
    domain character varying(32) NOT NULL,
    connector character varying(32) NOT NULL,
    base_url character varying(500) NOT NULL,
    integration_id character varying(255) NOT NULL,
    is_default boolean NOT NULL,
    settings jsonb NOT NULL,
    status character varying(16) NOT NULL,
    health_checked_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    created_by jsonb NOT NULL,
    tenant_id uuid NOT NULL,
    health character varying(16) NOT NULL,
    health_error character varying(300) NOT NULL
);


--
-- Name: toolhub_executionrecord; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.toolhub_executionrecord (
    id uuid NOT NULL,
    request_id character varying(128) NOT NULL,
    principal jsonb NOT NULL,
    principal_key character varying(200) NOT NULL,
    tool_key character varying(128) NOT NULL,
    connection_ref character varying(64) NOT NULL,
    outcome character varying(20) NOT NULL,
    error_code character varying(64) NOT NULL,
    http_status integer NOT NULL,
    duration_ms integer NOT NULL,
    upstream_ms integer,
    input_redacted jsonb NOT NULL,
    idempotency_key character varying(255) NOT NULL,
    approval_ref character varying(64) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    tenant_id uuid NOT NULL
);


--
-- Name: toolhub_idempotencyrecord; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.toolhub_idempotencyrecord (
    id bigint NOT NULL,
    principal_key character varying(200) NOT NULL,
    key character varying(255) NOT NULL,
    fingerprint character varying(64) NOT NULL,
    tool_key character varying(128) NOT NULL,
    status character varying(20) NOT NULL,
    response_status integer,
    response_body bytea,
    lease_until timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    completed_at timestamp with time zone,
    expires_at timestamp with time zone NOT NULL,
    approval_id uuid,
    tenant_id uuid NOT NULL,
    upstream_started_at timestamp with time zone
);


--
-- Name: toolhub_idempotencyrecord_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.toolhub_idempotencyrecord ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.toolhub_idempotencyrecord_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: vault_credential; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.vault_credential (
    id uuid NOT NULL,
    integration_id character varying(255) NOT NULL,
    name character varying(255) NOT NULL,
    description text NOT NULL,
    auth_type character varying(32) NOT NULL,
    scopes jsonb NOT NULL,
    status character varying(16) NOT NULL,
    token_endpoint character varying(2048) NOT NULL,
    authorization_endpoint character varying(2048) NOT NULL,
    metadata jsonb NOT NULL,
    access_token text,
    refresh_token text,
    secrets text,
    dek_version integer NOT NULL,
    expires_at timestamp with time zone,
    is_expired boolean NOT NULL,
    created_at timestamp with time zone NOT NULL,
    created_by jsonb NOT NULL,
    updated_at timestamp with time zone,
    updated_by jsonb,
    last_accessed_at timestamp with time zone,
    access_count bigint NOT NULL,
    last_refreshed_at timestamp with time zone,
    refresh_failed_at timestamp with time zone,
    refresh_error jsonb,
    last_rotated_at timestamp with time zone,
    rotation_due_at timestamp with time zone,
    deleted_at timestamp with time zone,
    deleted_by jsonb,
    tenant_id uuid NOT NULL,
    CONSTRAINT vault_credential_dek_version_check CHECK ((dek_version >= 0))
);


--
-- Name: vault_credentialtally; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.vault_credentialtally (
    id bigint NOT NULL,
    slot smallint NOT NULL,
    live bigint NOT NULL,
    tenant_id uuid NOT NULL,
    CONSTRAINT vault_credentialtally_slot_check CHECK ((slot >= 0))
);


--
-- Name: vault_credentialtally_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.vault_credentialtally ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.vault_credentialtally_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: vault_datakey; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.vault_datakey (
    id bigint NOT NULL,
    version integer NOT NULL,
    kek_id character varying(64) NOT NULL,
    wrapped text NOT NULL,
    status character varying(16) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    retired_at timestamp with time zone,
    tenant_id uuid NOT NULL,
    CONSTRAINT vault_datakey_version_check CHECK ((version >= 0))
);


--
-- Name: vault_datakey_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.vault_datakey ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.vault_datakey_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: vault_dekrotation; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.vault_dekrotation (
    id uuid NOT NULL,
    from_version integer NOT NULL,
    to_version integer NOT NULL,
    status character varying(16) NOT NULL,
    items_total integer NOT NULL,
    items_rotated integer NOT NULL,
    batches integer NOT NULL,
    job_run_id uuid,
    initiated_by jsonb NOT NULL,
    started_at timestamp with time zone NOT NULL,
    completed_at timestamp with time zone,
    outcome text NOT NULL,
    tenant_id uuid NOT NULL,
    CONSTRAINT vault_dekrotation_from_version_check CHECK ((from_version >= 0)),
    CONSTRAINT vault_dekrotation_to_version_check CHECK ((to_version >= 0))
);


--
-- Name: vault_masterkeyfingerprint; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.vault_masterkeyfingerprint (
    key_id character varying(64) NOT NULL,
    fingerprint character varying(64) NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Data for Name: adminops_apikey; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_apikey VALUES ('565d7aa9-2234-4c9e-b00d-f01f9b4a2048', 'demo', '', 'ak_live_LbjA', 'ab8a28b5312bafc6a11ce01c420294718f3e231fabadb6b9a486aef982a3d30e', '["*"]', '[]', '', '[]', 'live', 'active', NULL, NULL, 0, '2026-11-29 00:14:13.973627+00', NULL, NULL, NULL, '3ab62282-04bf-4894-be49-e3a21c4f3464', 0, NULL, NULL, '', '', '', NULL, NULL, '{}', NULL, 0, 0, '{}');


--
-- Data for Name: adminops_auditarchive; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_auditarchive VALUES ('d5ae28b8-8f16-40e0-8403-e208384d1374', 'platform', NULL, 1, 1, '0000000000000000000000000000000000000000000000000000000000000000', '1111111111111111111111111111111111111111111111111111111111111111', 1, '2026-11-29 00:14:15.980094+00', '2026-11-29 00:14:15.980094+00', 'platform/1.jsonl', '2222222222222222222222222222222222222222222222222222222222222222', 10, NULL, '2026-11-29 00:14:16.027139+00');


--
-- Data for Name: adminops_auditchainhead; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_auditchainhead VALUES ('3ab62282-04bf-4894-be49-e3a21c4f3464.1', 0, '0000000000000000000000000000000000000000000000000000000000000000');
INSERT INTO public.adminops_auditchainhead VALUES ('3ab62282-04bf-4894-be49-e3a21c4f3464.2', 0, '0000000000000000000000000000000000000000000000000000000000000000');
INSERT INTO public.adminops_auditchainhead VALUES ('3ab62282-04bf-4894-be49-e3a21c4f3464.3', 0, '0000000000000000000000000000000000000000000000000000000000000000');
INSERT INTO public.adminops_auditchainhead VALUES ('3ab62282-04bf-4894-be49-e3a21c4f3464.4', 0, '0000000000000000000000000000000000000000000000000000000000000000');
INSERT INTO public.adminops_auditchainhead VALUES ('3ab62282-04bf-4894-be49-e3a21c4f3464.5', 0, '0000000000000000000000000000000000000000000000000000000000000000');
INSERT INTO public.adminops_auditchainhead VALUES ('3ab62282-04bf-4894-be49-e3a21c4f3464.6', 0, '0000000000000000000000000000000000000000000000000000000000000000');
INSERT INTO public.adminops_auditchainhead VALUES ('3ab62282-04bf-4894-be49-e3a21c4f3464.7', 0, '0000000000000000000000000000000000000000000000000000000000000000');
INSERT INTO public.adminops_auditchainhead VALUES ('3ab62282-04bf-4894-be49-e3a21c4f3464', 3, 'e2b910a2ca772c4fdca0c0d7114c344a4609d247be49aa0f3e1ce47d5c468d8c');


--
-- Data for Name: adminops_auditentry; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_auditentry VALUES ('a9f928e4-ca91-430c-9c32-2e82a3f18024', '3ab62282-04bf-4894-be49-e3a21c4f3464', 1, '3ab62282-04bf-4894-be49-e3a21c4f3464', 'API_KEY_CREATED', 'api_keys', '{"id": "system:seed_demo", "name": "seed_demo", "type": "system", "email": "", "ipAddress": null}', 'system:seed_demo', '{"id": "565d7aa9-2234-4c9e-b00d-f01f9b4a2048", "name": "demo", "type": "api_key"}', 'api_key', '{"prefix": "ak_live_LbjA", "scopes": ["*"], "environment": "live"}', 'success', '', '2026-11-29 00:14:13.976174+00', '0000000000000000000000000000000000000000000000000000000000000000', '1421cff7ee00e4de8b938b974931635f68cebf1730c3f76190367b1e5d74486c');
INSERT INTO public.adminops_auditentry VALUES ('d05e0de3-f311-4f56-8c0c-bf16a869daf1', '3ab62282-04bf-4894-be49-e3a21c4f3464', 2, '3ab62282-04bf-4894-be49-e3a21c4f3464', 'CREDENTIAL_CREATED', 'credentials', '{"id": "system:seed_demo", "name": "seed_demo", "type": "system", "email": "", "ipAddress": null}', 'system:seed_demo', '{"id": "cred-cbb8a745-3e6d-452f-8a25-b901baae4497", "name": "itsm-demo-001", "type": "credential"}', 'credential', '{"scopes": ["tickets.read"], "authType": "api_key", "integrationId": "itsm-demo-001", "credentialName": "Demo ITSM instance"}', 'success', '', '2026-11-29 00:14:14.003124+00', '1421cff7ee00e4de8b938b974931635f68cebf1730c3f76190367b1e5d74486c', '139630429ec84b5d750e8b0c8a0cfac8acc23675bdb2f5354de79dfa3abc4b48');
INSERT INTO public.adminops_auditentry VALUES ('f81cb823-45c4-42e9-aa31-43204bd12191', '3ab62282-04bf-4894-be49-e3a21c4f3464', 3, '3ab62282-04bf-4894-be49-e3a21c4f3464', 'CONNECTION_CREATED', 'tools', '{"id": "system:seed_demo", "name": "seed_demo", "type": "system", "email": "", "ipAddress": null}', 'system:seed_demo', '{"id": "conn_1f162d7892184faeb597deb22c2ade8a", "name": "demo-knowledge", "type": "connection"}', 'connection', '{"domain": "knowledge", "connector": "knowledge"}', 'success', '', '2026-11-29 00:14:14.093274+00', '139630429ec84b5d750e8b0c8a0cfac8acc23675bdb2f5354de79dfa3abc4b48', 'e2b910a2ca772c4fdca0c0d7114c344a4609d247be49aa0f3e1ce47d5c468d8c');


--
-- Data for Name: adminops_identityrealm; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_identityrealm VALUES ('eb9e2e56-8c4e-41ae-92f7-e53a077b9852', 'corp', 'https://idp.example.com', 'api', '', 'preferred_username', 'roles', '{"admins": "tenant_admin"}', '2026-11-29 00:14:16.007055+00', '{}', NULL, '{}', '3ab62282-04bf-4894-be49-e3a21c4f3464');


--
-- Data for Name: adminops_jobrun; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_jobrun VALUES ('2da1c026-e530-4c1f-93d4-835a3fd584f9', 'reportGeneration', 'succeeded', NULL, '{}', '{}', '2026-11-29 00:14:16.012108+00', NULL, NULL, 1, 'ok', NULL, 0);


--
-- Data for Name: adminops_membership; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_membership VALUES (1, '["tenant_admin"]', '2026-11-29 00:14:11.645765+00', '9b6ac0b1-8468-4bf1-b1ab-57b65040a074', '3ab62282-04bf-4894-be49-e3a21c4f3464');
INSERT INTO public.adminops_membership VALUES (2, '["integration_admin"]', '2026-11-29 00:14:12.22276+00', '36dacbd1-6826-4e28-9598-54d43638394c', '3ab62282-04bf-4894-be49-e3a21c4f3464');
INSERT INTO public.adminops_membership VALUES (3, '["integration_viewer"]', '2026-11-29 00:14:12.804651+00', '5da2d299-f99d-498a-912c-5dc2bd6bafc0', '3ab62282-04bf-4894-be49-e3a21c4f3464');
INSERT INTO public.adminops_membership VALUES (4, '["audit_viewer"]', '2026-11-29 00:14:13.391511+00', '39051d2c-d949-4456-bd59-b1a33c9c7cad', '3ab62282-04bf-4894-be49-e3a21c4f3464');
INSERT INTO public.adminops_membership VALUES (5, '["approver"]', '2026-11-29 00:14:13.965221+00', 'e974f9a1-c045-4b05-8f8c-ceb1c3862082', '3ab62282-04bf-4894-be49-e3a21c4f3464');


--
-- Data for Name: adminops_oauthclient; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_oauthclient VALUES ('b1711a7e-ab9c-4b15-ad97-df33b6d9e4b5', 'upgrade-client', '', 'cid-upgrade', 'confidential', '["https://app.example.com/cb"]', '["authorization_code"]', '["vault:read"]', '[]', '[]', '[]', 'active', 0, 0, 0, NULL, NULL, '', '2026-11-29 00:14:16.014585+00', '{}', NULL, '{}', NULL, 0, NULL, '{}', '3ab62282-04bf-4894-be49-e3a21c4f3464', '', NULL, 'oauth_keyed$079bab4e07eb2f9fee0ffcc7a968705c5cdd0de29ae3d880e1a69438b058f84b', '2026-11-29 00:14:16.016411+00', true, '', 'manual', false, '{}', '2026-11-29 00:14:16.016437+00', '9b6ac0b1-8468-4bf1-b1ab-57b65040a074');
INSERT INTO public.adminops_oauthclient VALUES ('53f6ea71-bea4-46c4-8d2e-b907cc16c6a7', 'sa-client', '', 'cid-sa', 'confidential', '[]', '["client_credentials"]', '["vault:read"]', '[]', '[]', '[]', 'active', 0, 0, 0, NULL, NULL, '', '2026-11-29 00:14:16.019901+00', '{}', NULL, '{}', NULL, 0, NULL, '{}', '3ab62282-04bf-4894-be49-e3a21c4f3464', '', NULL, 'oauth_keyed$2cf372dff4c51cd6ce7783feb5b610204b05b806ae3638053e4c816153678b66', '2026-11-29 00:14:16.020301+00', true, '', 'manual', false, '{}', '2026-11-29 00:14:16.020318+00', NULL);


--
-- Data for Name: adminops_serviceaccount; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_serviceaccount VALUES ('988656ef-87bf-4df8-b925-d4bce066470a', 'robot', '["api:read"]', 'active', NULL, '2026-11-29 00:14:16.0224+00', '{}', '3ab62282-04bf-4894-be49-e3a21c4f3464', '53f6ea71-bea4-46c4-8d2e-b907cc16c6a7');


--
-- Data for Name: adminops_tenant; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_tenant VALUES ('3ab62282-04bf-4894-be49-e3a21c4f3464', 'demo', 'Demo', 'demo.local', '', '', 'active', '{}', '{}', '2026-11-29 00:14:11.130495+00', '2026-11-29 00:14:11.130796+00');


--
-- Data for Name: adminops_usagereport; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_usagereport VALUES ('87ede0dc-9770-4411-a92a-92dae6d28abb', '2026-11-01 00:14:15.980094+00', '2026-11-29 00:14:15.980094+00', false, '{"calls": 1}', '2026-11-29 00:14:16.025097+00', '2da1c026-e530-4c1f-93d4-835a3fd584f9', '3ab62282-04bf-4894-be49-e3a21c4f3464');


--
-- Data for Name: adminops_user; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_user VALUES ('pbkdf2_sha256$1000000$KiPW4d88L2Fuayz5lKRZBF$vUQNebgD0z0yxHzujtYsBNMD9x6ZTD2Yhb2ivg4lRHo=', NULL, false, 'demo-owner', '', '', 'demo-owner@demo.local', true, true, '2026-11-29 00:14:11.13961+00', '9b6ac0b1-8468-4bf1-b1ab-57b65040a074');
INSERT INTO public.adminops_user VALUES ('pbkdf2_sha256$1000000$6evMni85Gm0MSG9Ehc4CXT$nny2sOjWm0ZZjslWR1890WHmixO+H2oQvvX+N+Nn9gs=', NULL, false, 'demo-integrations', '', '', 'demo-integrations@demo.local', false, true, '2026-11-29 00:14:11.654672+00', '36dacbd1-6826-4e28-9598-54d43638394c');
INSERT INTO public.adminops_user VALUES ('pbkdf2_sha256$1000000$ajyy5ueur1xxEulyuESuaC$cW9qcuqLqB+B+U1ad9fBTUTCWuvMxvqUXWA0KHoYy3M=', NULL, false, 'demo-viewer', '', '', 'demo-viewer@demo.local', false, true, '2026-11-29 00:14:12.22859+00', '5da2d299-f99d-498a-912c-5dc2bd6bafc0');
INSERT INTO public.adminops_user VALUES ('pbkdf2_sha256$1000000$JyknB0dFeKL5BoJhMJKaQg$hsfaQoh2j+Ze/OnhhlgTK06aUxaoYKaodqpKdrtxrLo=', NULL, false, 'demo-auditor', '', '', 'demo-auditor@demo.local', true, true, '2026-11-29 00:14:12.810349+00', '39051d2c-d949-4456-bd59-b1a33c9c7cad');
INSERT INTO public.adminops_user VALUES ('pbkdf2_sha256$1000000$1KraqYf3Uid315J04o64KL$JoxWSypzECcvvIASEUn1G+0ZjkN9as5ilWQ++gAeqB4=', NULL, false, 'demo-approver', '', '', 'demo-approver@demo.local', true, true, '2026-11-29 00:14:13.397373+00', 'e974f9a1-c045-4b05-8f8c-ceb1c3862082');


--
-- Data for Name: adminops_user_groups; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_user_groups VALUES (1, '9b6ac0b1-8468-4bf1-b1ab-57b65040a074', 1);


--
-- Data for Name: adminops_user_user_permissions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adminops_user_user_permissions VALUES (1, '9b6ac0b1-8468-4bf1-b1ab-57b65040a074', 1);


--
-- Data for Name: auth_group; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.auth_group VALUES (1, 'upgrade-group');


--
-- Data for Name: auth_group_permissions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.auth_group_permissions VALUES (1, 1, 1);


--
-- Data for Name: auth_permission; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.auth_permission VALUES (1, 'Can add log entry', 1, 'add_logentry');
INSERT INTO public.auth_permission VALUES (2, 'Can change log entry', 1, 'change_logentry');
INSERT INTO public.auth_permission VALUES (3, 'Can delete log entry', 1, 'delete_logentry');
INSERT INTO public.auth_permission VALUES (4, 'Can view log entry', 1, 'view_logentry');
INSERT INTO public.auth_permission VALUES (5, 'Can add permission', 2, 'add_permission');
INSERT INTO public.auth_permission VALUES (6, 'Can change permission', 2, 'change_permission');
INSERT INTO public.auth_permission VALUES (7, 'Can delete permission', 2, 'delete_permission');
INSERT INTO public.auth_permission VALUES (8, 'Can view permission', 2, 'view_permission');
INSERT INTO public.auth_permission VALUES (9, 'Can add group', 3, 'add_group');
INSERT INTO public.auth_permission VALUES (10, 'Can change group', 3, 'change_group');
INSERT INTO public.auth_permission VALUES (11, 'Can delete group', 3, 'delete_group');
INSERT INTO public.auth_permission VALUES (12, 'Can view group', 3, 'view_group');
INSERT INTO public.auth_permission VALUES (13, 'Can add content type', 4, 'add_contenttype');
INSERT INTO public.auth_permission VALUES (14, 'Can change content type', 4, 'change_contenttype');
INSERT INTO public.auth_permission VALUES (15, 'Can delete content type', 4, 'delete_contenttype');
INSERT INTO public.auth_permission VALUES (16, 'Can view content type', 4, 'view_contenttype');
INSERT INTO public.auth_permission VALUES (17, 'Can add session', 5, 'add_session');
INSERT INTO public.auth_permission VALUES (18, 'Can change session', 5, 'change_session');
INSERT INTO public.auth_permission VALUES (19, 'Can delete session', 5, 'delete_session');
INSERT INTO public.auth_permission VALUES (20, 'Can view session', 5, 'view_session');
INSERT INTO public.auth_permission VALUES (21, 'Can add audit chain head', 6, 'add_auditchainhead');
INSERT INTO public.auth_permission VALUES (22, 'Can change audit chain head', 6, 'change_auditchainhead');
INSERT INTO public.auth_permission VALUES (23, 'Can delete audit chain head', 6, 'delete_auditchainhead');
INSERT INTO public.auth_permission VALUES (24, 'Can view audit chain head', 6, 'view_auditchainhead');
INSERT INTO public.auth_permission VALUES (25, 'Can add tenant', 7, 'add_tenant');
INSERT INTO public.auth_permission VALUES (26, 'Can change tenant', 7, 'change_tenant');
INSERT INTO public.auth_permission VALUES (27, 'Can delete tenant', 7, 'delete_tenant');
INSERT INTO public.auth_permission VALUES (28, 'Can view tenant', 7, 'view_tenant');
INSERT INTO public.auth_permission VALUES (29, 'Can add user', 8, 'add_user');
INSERT INTO public.auth_permission VALUES (30, 'Can change user', 8, 'change_user');
INSERT INTO public.auth_permission VALUES (31, 'Can delete user', 8, 'delete_user');
INSERT INTO public.auth_permission VALUES (32, 'Can view user', 8, 'view_user');
INSERT INTO public.auth_permission VALUES (33, 'Can add audit entry', 9, 'add_auditentry');
INSERT INTO public.auth_permission VALUES (34, 'Can change audit entry', 9, 'change_auditentry');
INSERT INTO public.auth_permission VALUES (35, 'Can delete audit entry', 9, 'delete_auditentry');
INSERT INTO public.auth_permission VALUES (36, 'Can view audit entry', 9, 'view_auditentry');
INSERT INTO public.auth_permission VALUES (37, 'Can add job run', 10, 'add_jobrun');
INSERT INTO public.auth_permission VALUES (38, 'Can change job run', 10, 'change_jobrun');
INSERT INTO public.auth_permission VALUES (39, 'Can delete job run', 10, 'delete_jobrun');
INSERT INTO public.auth_permission VALUES (40, 'Can view job run', 10, 'view_jobrun');
INSERT INTO public.auth_permission VALUES (41, 'Can add membership', 11, 'add_membership');
INSERT INTO public.auth_permission VALUES (42, 'Can change membership', 11, 'change_membership');
INSERT INTO public.auth_permission VALUES (43, 'Can delete membership', 11, 'delete_membership');
INSERT INTO public.auth_permission VALUES (44, 'Can view membership', 11, 'view_membership');
INSERT INTO public.auth_permission VALUES (45, 'Can add API key', 12, 'add_apikey');
INSERT INTO public.auth_permission VALUES (46, 'Can change API key', 12, 'change_apikey');
INSERT INTO public.auth_permission VALUES (47, 'Can delete API key', 12, 'delete_apikey');
INSERT INTO public.auth_permission VALUES (48, 'Can view API key', 12, 'view_apikey');
INSERT INTO public.auth_permission VALUES (49, 'Can add OAuth client', 13, 'add_oauthclient');
INSERT INTO public.auth_permission VALUES (50, 'Can change OAuth client', 13, 'change_oauthclient');
INSERT INTO public.auth_permission VALUES (51, 'Can delete OAuth client', 13, 'delete_oauthclient');
INSERT INTO public.auth_permission VALUES (52, 'Can view OAuth client', 13, 'view_oauthclient');
INSERT INTO public.auth_permission VALUES (53, 'Can add service account', 14, 'add_serviceaccount');
INSERT INTO public.auth_permission VALUES (54, 'Can change service account', 14, 'change_serviceaccount');
INSERT INTO public.auth_permission VALUES (55, 'Can delete service account', 14, 'delete_serviceaccount');
INSERT INTO public.auth_permission VALUES (56, 'Can view service account', 14, 'view_serviceaccount');
INSERT INTO public.auth_permission VALUES (57, 'Can add audit archive', 15, 'add_auditarchive');
INSERT INTO public.auth_permission VALUES (58, 'Can change audit archive', 15, 'change_auditarchive');
INSERT INTO public.auth_permission VALUES (59, 'Can delete audit archive', 15, 'delete_auditarchive');
INSERT INTO public.auth_permission VALUES (60, 'Can view audit archive', 15, 'view_auditarchive');
INSERT INTO public.auth_permission VALUES (61, 'Can add usage report', 16, 'add_usagereport');
INSERT INTO public.auth_permission VALUES (62, 'Can change usage report', 16, 'change_usagereport');
INSERT INTO public.auth_permission VALUES (63, 'Can delete usage report', 16, 'delete_usagereport');
INSERT INTO public.auth_permission VALUES (64, 'Can view usage report', 16, 'view_usagereport');
INSERT INTO public.auth_permission VALUES (65, 'Can add identity realm', 17, 'add_identityrealm');
INSERT INTO public.auth_permission VALUES (66, 'Can change identity realm', 17, 'change_identityrealm');
INSERT INTO public.auth_permission VALUES (67, 'Can delete identity realm', 17, 'delete_identityrealm');
INSERT INTO public.auth_permission VALUES (68, 'Can view identity realm', 17, 'view_identityrealm');
INSERT INTO public.auth_permission VALUES (69, 'Can add access token', 18, 'add_accesstoken');
INSERT INTO public.auth_permission VALUES (70, 'Can change access token', 18, 'change_accesstoken');
INSERT INTO public.auth_permission VALUES (71, 'Can delete access token', 18, 'delete_accesstoken');
INSERT INTO public.auth_permission VALUES (72, 'Can view access token', 18, 'view_accesstoken');
INSERT INTO public.auth_permission VALUES (73, 'Can add grant', 19, 'add_grant');
INSERT INTO public.auth_permission VALUES (74, 'Can change grant', 19, 'change_grant');
INSERT INTO public.auth_permission VALUES (75, 'Can delete grant', 19, 'delete_grant');
INSERT INTO public.auth_permission VALUES (76, 'Can view grant', 19, 'view_grant');
INSERT INTO public.auth_permission VALUES (77, 'Can add refresh token', 20, 'add_refreshtoken');
INSERT INTO public.auth_permission VALUES (78, 'Can change refresh token', 20, 'change_refreshtoken');
INSERT INTO public.auth_permission VALUES (79, 'Can delete refresh token', 20, 'delete_refreshtoken');
INSERT INTO public.auth_permission VALUES (80, 'Can view refresh token', 20, 'view_refreshtoken');
INSERT INTO public.auth_permission VALUES (81, 'Can add id token', 21, 'add_idtoken');
INSERT INTO public.auth_permission VALUES (82, 'Can change id token', 21, 'change_idtoken');
INSERT INTO public.auth_permission VALUES (83, 'Can delete id token', 21, 'delete_idtoken');
INSERT INTO public.auth_permission VALUES (84, 'Can view id token', 21, 'view_idtoken');
INSERT INTO public.auth_permission VALUES (85, 'Can add device grant', 22, 'add_devicegrant');
INSERT INTO public.auth_permission VALUES (86, 'Can change device grant', 22, 'change_devicegrant');
INSERT INTO public.auth_permission VALUES (87, 'Can delete device grant', 22, 'delete_devicegrant');
INSERT INTO public.auth_permission VALUES (88, 'Can view device grant', 22, 'view_devicegrant');
INSERT INTO public.auth_permission VALUES (89, 'Can add master key fingerprint', 23, 'add_masterkeyfingerprint');
INSERT INTO public.auth_permission VALUES (90, 'Can change master key fingerprint', 23, 'change_masterkeyfingerprint');
INSERT INTO public.auth_permission VALUES (91, 'Can delete master key fingerprint', 23, 'delete_masterkeyfingerprint');
INSERT INTO public.auth_permission VALUES (92, 'Can view master key fingerprint', 23, 'view_masterkeyfingerprint');
INSERT INTO public.auth_permission VALUES (93, 'Can add credential', 24, 'add_credential');
INSERT INTO public.auth_permission VALUES (94, 'Can change credential', 24, 'change_credential');
INSERT INTO public.auth_permission VALUES (95, 'Can delete credential', 24, 'delete_credential');
INSERT INTO public.auth_permission VALUES (96, 'Can view credential', 24, 'view_credential');
INSERT INTO public.auth_permission VALUES (97, 'Can add data key (DEK)', 25, 'add_datakey');
INSERT INTO public.auth_permission VALUES (98, 'Can change data key (DEK)', 25, 'change_datakey');
INSERT INTO public.auth_permission VALUES (99, 'Can delete data key (DEK)', 25, 'delete_datakey');
INSERT INTO public.auth_permission VALUES (100, 'Can view data key (DEK)', 25, 'view_datakey');
INSERT INTO public.auth_permission VALUES (101, 'Can add DEK rotation', 26, 'add_dekrotation');
INSERT INTO public.auth_permission VALUES (102, 'Can change DEK rotation', 26, 'change_dekrotation');
INSERT INTO public.auth_permission VALUES (103, 'Can delete DEK rotation', 26, 'delete_dekrotation');
INSERT INTO public.auth_permission VALUES (104, 'Can view DEK rotation', 26, 'view_dekrotation');
INSERT INTO public.auth_permission VALUES (105, 'Can add credential tally', 27, 'add_credentialtally');
INSERT INTO public.auth_permission VALUES (106, 'Can change credential tally', 27, 'change_credentialtally');
INSERT INTO public.auth_permission VALUES (107, 'Can delete credential tally', 27, 'delete_credentialtally');
INSERT INTO public.auth_permission VALUES (108, 'Can view credential tally', 27, 'view_credentialtally');
INSERT INTO public.auth_permission VALUES (109, 'Can add source rule', 28, 'add_sourcerule');
INSERT INTO public.auth_permission VALUES (110, 'Can change source rule', 28, 'change_sourcerule');
INSERT INTO public.auth_permission VALUES (111, 'Can delete source rule', 28, 'delete_sourcerule');
INSERT INTO public.auth_permission VALUES (112, 'Can view source rule', 28, 'view_sourcerule');
INSERT INTO public.auth_permission VALUES (113, 'Can add document', 29, 'add_document');
INSERT INTO public.auth_permission VALUES (114, 'Can change document', 29, 'change_document');
INSERT INTO public.auth_permission VALUES (115, 'Can delete document', 29, 'delete_document');
INSERT INTO public.auth_permission VALUES (116, 'Can view document', 29, 'view_document');
INSERT INTO public.auth_permission VALUES (117, 'Can add chunk', 30, 'add_chunk');
INSERT INTO public.auth_permission VALUES (118, 'Can change chunk', 30, 'change_chunk');
INSERT INTO public.auth_permission VALUES (119, 'Can delete chunk', 30, 'delete_chunk');
INSERT INTO public.auth_permission VALUES (120, 'Can view chunk', 30, 'view_chunk');
INSERT INTO public.auth_permission VALUES (121, 'Can add failed file', 31, 'add_failedfilerow');
INSERT INTO public.auth_permission VALUES (122, 'Can change failed file', 31, 'change_failedfilerow');
INSERT INTO public.auth_permission VALUES (123, 'Can delete failed file', 31, 'delete_failedfilerow');
INSERT INTO public.auth_permission VALUES (124, 'Can view failed file', 31, 'view_failedfilerow');
INSERT INTO public.auth_permission VALUES (125, 'Can add sync configuration', 32, 'add_syncconfiguration');
INSERT INTO public.auth_permission VALUES (126, 'Can change sync configuration', 32, 'change_syncconfiguration');
INSERT INTO public.auth_permission VALUES (127, 'Can delete sync configuration', 32, 'delete_syncconfiguration');
INSERT INTO public.auth_permission VALUES (128, 'Can view sync configuration', 32, 'view_syncconfiguration');
INSERT INTO public.auth_permission VALUES (129, 'Can add sync run', 33, 'add_syncrun');
INSERT INTO public.auth_permission VALUES (130, 'Can change sync run', 33, 'change_syncrun');
INSERT INTO public.auth_permission VALUES (131, 'Can delete sync run', 33, 'delete_syncrun');
INSERT INTO public.auth_permission VALUES (132, 'Can view sync run', 33, 'view_syncrun');
INSERT INTO public.auth_permission VALUES (133, 'Can add sync run item', 34, 'add_syncrunitem');
INSERT INTO public.auth_permission VALUES (134, 'Can change sync run item', 34, 'change_syncrunitem');
INSERT INTO public.auth_permission VALUES (135, 'Can delete sync run item', 34, 'delete_syncrunitem');
INSERT INTO public.auth_permission VALUES (136, 'Can view sync run item', 34, 'view_syncrunitem');
INSERT INTO public.auth_permission VALUES (137, 'Can add approval policy', 35, 'add_approvalpolicy');
INSERT INTO public.auth_permission VALUES (138, 'Can change approval policy', 35, 'change_approvalpolicy');
INSERT INTO public.auth_permission VALUES (139, 'Can delete approval policy', 35, 'delete_approvalpolicy');
INSERT INTO public.auth_permission VALUES (140, 'Can view approval policy', 35, 'view_approvalpolicy');
INSERT INTO public.auth_permission VALUES (141, 'Can add connection', 36, 'add_connection');
INSERT INTO public.auth_permission VALUES (142, 'Can change connection', 36, 'change_connection');
INSERT INTO public.auth_permission VALUES (143, 'Can delete connection', 36, 'delete_connection');
INSERT INTO public.auth_permission VALUES (144, 'Can view connection', 36, 'view_connection');
INSERT INTO public.auth_permission VALUES (145, 'Can add approval', 37, 'add_approval');
INSERT INTO public.auth_permission VALUES (146, 'Can change approval', 37, 'change_approval');
INSERT INTO public.auth_permission VALUES (147, 'Can delete approval', 37, 'delete_approval');
INSERT INTO public.auth_permission VALUES (148, 'Can view approval', 37, 'view_approval');
INSERT INTO public.auth_permission VALUES (149, 'Can add execution record', 38, 'add_executionrecord');
INSERT INTO public.auth_permission VALUES (150, 'Can change execution record', 38, 'change_executionrecord');
INSERT INTO public.auth_permission VALUES (151, 'Can delete execution record', 38, 'delete_executionrecord');
INSERT INTO public.auth_permission VALUES (152, 'Can view execution record', 38, 'view_executionrecord');
INSERT INTO public.auth_permission VALUES (153, 'Can add idempotency record', 39, 'add_idempotencyrecord');
INSERT INTO public.auth_permission VALUES (154, 'Can change idempotency record', 39, 'change_idempotencyrecord');
INSERT INTO public.auth_permission VALUES (155, 'Can delete idempotency record', 39, 'delete_idempotencyrecord');
INSERT INTO public.auth_permission VALUES (156, 'Can view idempotency record', 39, 'view_idempotencyrecord');


--
-- Data for Name: django_admin_log; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.django_admin_log VALUES (1, '2026-11-29 00:14:16.030694+00', '3ab62282-04bf-4894-be49-e3a21c4f3464', 'demo', 1, '', 7, '9b6ac0b1-8468-4bf1-b1ab-57b65040a074');


--
-- Data for Name: django_content_type; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.django_content_type VALUES (1, 'admin', 'logentry');
INSERT INTO public.django_content_type VALUES (2, 'auth', 'permission');
INSERT INTO public.django_content_type VALUES (3, 'auth', 'group');
INSERT INTO public.django_content_type VALUES (4, 'contenttypes', 'contenttype');
INSERT INTO public.django_content_type VALUES (5, 'sessions', 'session');
INSERT INTO public.django_content_type VALUES (6, 'adminops', 'auditchainhead');
INSERT INTO public.django_content_type VALUES (7, 'adminops', 'tenant');
INSERT INTO public.django_content_type VALUES (8, 'adminops', 'user');
INSERT INTO public.django_content_type VALUES (9, 'adminops', 'auditentry');
INSERT INTO public.django_content_type VALUES (10, 'adminops', 'jobrun');
INSERT INTO public.django_content_type VALUES (11, 'adminops', 'membership');
INSERT INTO public.django_content_type VALUES (12, 'adminops', 'apikey');
INSERT INTO public.django_content_type VALUES (13, 'adminops', 'oauthclient');
INSERT INTO public.django_content_type VALUES (14, 'adminops', 'serviceaccount');
INSERT INTO public.django_content_type VALUES (15, 'adminops', 'auditarchive');
INSERT INTO public.django_content_type VALUES (16, 'adminops', 'usagereport');
INSERT INTO public.django_content_type VALUES (17, 'adminops', 'identityrealm');
INSERT INTO public.django_content_type VALUES (18, 'oauth2_provider', 'accesstoken');
INSERT INTO public.django_content_type VALUES (19, 'oauth2_provider', 'grant');
INSERT INTO public.django_content_type VALUES (20, 'oauth2_provider', 'refreshtoken');
INSERT INTO public.django_content_type VALUES (21, 'oauth2_provider', 'idtoken');
INSERT INTO public.django_content_type VALUES (22, 'oauth2_provider', 'devicegrant');
INSERT INTO public.django_content_type VALUES (23, 'vault', 'masterkeyfingerprint');
INSERT INTO public.django_content_type VALUES (24, 'vault', 'credential');
INSERT INTO public.django_content_type VALUES (25, 'vault', 'datakey');
INSERT INTO public.django_content_type VALUES (26, 'vault', 'dekrotation');
INSERT INTO public.django_content_type VALUES (27, 'vault', 'credentialtally');
INSERT INTO public.django_content_type VALUES (28, 'knowledge', 'sourcerule');
INSERT INTO public.django_content_type VALUES (29, 'knowledge', 'document');
INSERT INTO public.django_content_type VALUES (30, 'knowledge', 'chunk');
INSERT INTO public.django_content_type VALUES (31, 'ingestion', 'failedfilerow');
INSERT INTO public.django_content_type VALUES (32, 'ingestion', 'syncconfiguration');
INSERT INTO public.django_content_type VALUES (33, 'ingestion', 'syncrun');
INSERT INTO public.django_content_type VALUES (34, 'ingestion', 'syncrunitem');
INSERT INTO public.django_content_type VALUES (35, 'toolhub', 'approvalpolicy');
INSERT INTO public.django_content_type VALUES (36, 'toolhub', 'connection');
INSERT INTO public.django_content_type VALUES (37, 'toolhub', 'approval');
INSERT INTO public.django_content_type VALUES (38, 'toolhub', 'executionrecord');
INSERT INTO public.django_content_type VALUES (39, 'toolhub', 'idempotencyrecord');


--
-- Data for Name: django_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.django_migrations VALUES (1, 'contenttypes', '0001_initial', '2026-11-29 00:13:59.135016+00');
INSERT INTO public.django_migrations VALUES (2, 'contenttypes', '0002_remove_content_type_name', '2026-11-29 00:13:59.143885+00');
INSERT INTO public.django_migrations VALUES (3, 'auth', '0001_initial', '2026-11-29 00:13:59.184763+00');
INSERT INTO public.django_migrations VALUES (4, 'auth', '0002_alter_permission_name_max_length', '2026-11-29 00:13:59.192143+00');
INSERT INTO public.django_migrations VALUES (5, 'auth', '0003_alter_user_email_max_length', '2026-11-29 00:13:59.199787+00');
INSERT INTO public.django_migrations VALUES (6, 'auth', '0004_alter_user_username_opts', '2026-11-29 00:13:59.208403+00');
INSERT INTO public.django_migrations VALUES (7, 'auth', '0005_alter_user_last_login_null', '2026-11-29 00:13:59.216996+00');
INSERT INTO public.django_migrations VALUES (8, 'auth', '0006_require_contenttypes_0002', '2026-11-29 00:13:59.219324+00');
INSERT INTO public.django_migrations VALUES (9, 'auth', '0007_alter_validators_add_error_messages', '2026-11-29 00:13:59.226932+00');
INSERT INTO public.django_migrations VALUES (10, 'auth', '0008_alter_user_username_max_length', '2026-11-29 00:13:59.233869+00');
INSERT INTO public.django_migrations VALUES (11, 'auth', '0009_alter_user_last_name_max_length', '2026-11-29 00:13:59.241279+00');
INSERT INTO public.django_migrations VALUES (12, 'auth', '0010_alter_group_name_max_length', '2026-11-29 00:13:59.250344+00');
INSERT INTO public.django_migrations VALUES (13, 'auth', '0011_update_proxy_permissions', '2026-11-29 00:13:59.2582+00');
INSERT INTO public.django_migrations VALUES (14, 'auth', '0012_alter_user_first_name_max_length', '2026-11-29 00:13:59.26632+00');
INSERT INTO public.django_migrations VALUES (15, 'adminops', '0001_initial', '2026-11-29 00:13:59.515894+00');
INSERT INTO public.django_migrations VALUES (16, 'admin', '0001_initial', '2026-11-29 00:13:59.542072+00');
INSERT INTO public.django_migrations VALUES (17, 'admin', '0002_logentry_remove_auto_add', '2026-11-29 00:13:59.555242+00');
INSERT INTO public.django_migrations VALUES (18, 'admin', '0003_logentry_add_action_flag_choices', '2026-11-29 00:13:59.568642+00');
INSERT INTO public.django_migrations VALUES (19, 'adminops', '0002_apikey_failure_count_apikey_first_used_at_and_more', '2026-11-29 00:13:59.91735+00');
INSERT INTO public.django_migrations VALUES (20, 'adminops', '0003_audit_archive_usage_report', '2026-11-29 00:13:59.954856+00');
INSERT INTO public.django_migrations VALUES (21, 'adminops', '0004_api_key_connections', '2026-11-29 00:13:59.979992+00');
INSERT INTO public.django_migrations VALUES (22, 'adminops', '0005_identity_realm', '2026-11-29 00:14:00.009919+00');
INSERT INTO public.django_migrations VALUES (23, 'adminops', '0006_oauth_clients_on_django_oauth_toolkit', '2026-11-29 00:14:00.327035+00');
INSERT INTO public.django_migrations VALUES (24, 'adminops', '0007_console_labels', '2026-11-29 00:14:00.350039+00');
INSERT INTO public.django_migrations VALUES (25, 'ingestion', '0001_initial', '2026-11-29 00:14:00.37317+00');
INSERT INTO public.django_migrations VALUES (26, 'ingestion', '0002_sync_configurations_and_runs', '2026-11-29 00:14:00.591202+00');
INSERT INTO public.django_migrations VALUES (27, 'ingestion', '0003_run_retry_items_and_item_content_type', '2026-11-29 00:14:00.64418+00');
INSERT INTO public.django_migrations VALUES (28, 'ingestion', '0004_console_labels', '2026-11-29 00:14:00.783118+00');
INSERT INTO public.django_migrations VALUES (29, 'knowledge', '0001_initial', '2026-11-29 00:14:00.821448+00');
INSERT INTO public.django_migrations VALUES (30, 'knowledge', '0002_documents_chunks', '2026-11-29 00:14:01.206541+00');
INSERT INTO public.django_migrations VALUES (31, 'knowledge', '0003_source_rule_url_target_and_readers', '2026-11-29 00:14:01.284366+00');
INSERT INTO public.django_migrations VALUES (32, 'oauth2_provider', '0001_initial', '2026-11-29 00:14:01.472526+00');
INSERT INTO public.django_migrations VALUES (33, 'oauth2_provider', '0002_auto_20190406_1805', '2026-11-29 00:14:01.520801+00');
INSERT INTO public.django_migrations VALUES (34, 'oauth2_provider', '0003_auto_20201211_1314', '2026-11-29 00:14:01.547226+00');
INSERT INTO public.django_migrations VALUES (35, 'oauth2_provider', '0004_auto_20200902_2022', '2026-11-29 00:14:01.709228+00');
INSERT INTO public.django_migrations VALUES (36, 'oauth2_provider', '0005_auto_20211222_2352', '2026-11-29 00:14:01.891322+00');
INSERT INTO public.django_migrations VALUES (37, 'oauth2_provider', '0006_alter_application_client_secret', '2026-11-29 00:14:01.962866+00');
INSERT INTO public.django_migrations VALUES (38, 'oauth2_provider', '0007_application_post_logout_redirect_uris', '2026-11-29 00:14:01.98593+00');
INSERT INTO public.django_migrations VALUES (39, 'oauth2_provider', '0008_alter_accesstoken_token', '2026-11-29 00:14:02.198672+00');
INSERT INTO public.django_migrations VALUES (40, 'oauth2_provider', '0009_add_hash_client_secret', '2026-11-29 00:14:02.223565+00');
INSERT INTO public.django_migrations VALUES (41, 'oauth2_provider', '0010_application_allowed_origins', '2026-11-29 00:14:02.24732+00');
INSERT INTO public.django_migrations VALUES (42, 'oauth2_provider', '0011_refreshtoken_token_family', '2026-11-29 00:14:02.272617+00');
INSERT INTO public.django_migrations VALUES (43, 'oauth2_provider', '0012_add_token_checksum', '2026-11-29 00:14:02.405665+00');
INSERT INTO public.django_migrations VALUES (44, 'oauth2_provider', '0013_alter_application_authorization_grant_type_device', '2026-11-29 00:14:02.46522+00');
INSERT INTO public.django_migrations VALUES (45, 'oauth2_provider', '0014_alter_help_text', '2026-11-29 00:14:02.485631+00');
INSERT INTO public.django_migrations VALUES (46, 'oauth2_provider', '0015_refreshtoken_token_checksum', '2026-11-29 00:14:02.673986+00');
INSERT INTO public.django_migrations VALUES (47, 'oauth2_provider', '0016_alter_devicegrant_scope', '2026-11-29 00:14:02.705735+00');
INSERT INTO public.django_migrations VALUES (48, 'oauth2_provider', '0017_application_dcr_created', '2026-11-29 00:14:02.731173+00');
INSERT INTO public.django_migrations VALUES (49, 'oauth2_provider', '0018_resource_indicators', '2026-11-29 00:14:02.818291+00');
INSERT INTO public.django_migrations VALUES (50, 'oauth2_provider', '0019_application_registration_source', '2026-11-29 00:14:02.917659+00');
INSERT INTO public.django_migrations VALUES (51, 'oauth2_provider', '0020_cimd_application_fields', '2026-11-29 00:14:02.971751+00');
INSERT INTO public.django_migrations VALUES (52, 'oauth2_provider', '0021_translatable_field_labels', '2026-11-29 00:14:05.238981+00');
INSERT INTO public.django_migrations VALUES (53, 'oauth2_provider', '0022_refreshtoken_token_family_index', '2026-11-29 00:14:05.268958+00');
INSERT INTO public.django_migrations VALUES (54, 'sessions', '0001_initial', '2026-11-29 00:14:05.278442+00');
INSERT INTO public.django_migrations VALUES (55, 'toolhub', '0001_initial', '2026-11-29 00:14:06.057758+00');
INSERT INTO public.django_migrations VALUES (56, 'toolhub', '0002_idempotency_upstream_started', '2026-11-29 00:14:06.09379+00');
INSERT INTO public.django_migrations VALUES (57, 'toolhub', '0003_execution_tenant_index_dropped', '2026-11-29 00:14:06.154387+00');
INSERT INTO public.django_migrations VALUES (58, 'toolhub', '0004_connection_health', '2026-11-29 00:14:06.380778+00');
INSERT INTO public.django_migrations VALUES (59, 'toolhub', '0005_approval_channel_and_console_labels', '2026-11-29 00:14:06.439557+00');
INSERT INTO public.django_migrations VALUES (60, 'vault', '0001_initial', '2026-11-29 00:14:06.611099+00');
INSERT INTO public.django_migrations VALUES (61, 'vault', '0002_credential_dek_version_not_indexed', '2026-11-29 00:14:06.652995+00');
INSERT INTO public.django_migrations VALUES (62, 'vault', '0003_credential_tally', '2026-11-29 00:14:07.010956+00');
INSERT INTO public.django_migrations VALUES (63, 'vault', '0004_console_labels', '2026-11-29 00:14:07.084544+00');


--
-- Data for Name: django_session; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.django_session VALUES ('8tksqz8noadqv3qmvrg6g4ygzsops8ot', 'eyJrIjoidiJ9:1xXSYa:4AqMHfo9EqS8fAfEfEMo8xY1Q9lSX1PFBVG9D1Xge3M', '2026-12-13 00:14:16.035713+00');


--
-- Data for Name: ingestion_failedfilerow; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.ingestion_failedfilerow VALUES (1, '3ab62282-04bf-4894-be49-e3a21c4f3464', 'sitelib_attachment', 'bfa37074b6e3cfa5adb42970ed1c69110ed2507c854390da73415a6d922a7bcd', 'demo-file-001', 'demo.local', 'Quarterly report.pdf', 'https://demo.example.com/sites/finance/Shared%20Documents/Quarterly%20report.pdf', 'FILE_TOO_LARGE', 'File size 72 MB exceeds the 50 MB maximum for ingestion.', '2026-11-28 23:14:14.077709+00', 1);
INSERT INTO public.ingestion_failedfilerow VALUES (2, '3ab62282-04bf-4894-be49-e3a21c4f3464', 'sitelib_article', '8efff829c4081ee605821f0dfdcc499fb9dd210e382b5e0bfdb4899159e76cfb', 'demo-page-002', 'demo.local', 'Onboarding.aspx', 'https://demo.example.com/sites/hr/SitePages/Onboarding.aspx', 'PARSE_ERROR', 'The page body could not be parsed.', '2026-11-28 22:14:14.077709+00', 1);
INSERT INTO public.ingestion_failedfilerow VALUES (3, '3ab62282-04bf-4894-be49-e3a21c4f3464', 'wikispace_article', '4671a8217b0c6cdda78c88c2cea4cabdd76c5c0a1667db1c74d700a6d1505033', 'demo-wiki-003', 'demo.local', 'Runbook: VPN', 'https://demo.example.com/wiki/spaces/OPS/pages/3', 'ACCESS_DENIED', 'The integration user may not read this page.', '2026-11-28 21:14:14.077709+00', 1);
INSERT INTO public.ingestion_failedfilerow VALUES (4, '3ab62282-04bf-4894-be49-e3a21c4f3464', 'itdocs_attachment', '13a98934c637a2fdf2ca529e85ad534caabfca51f1623bb3e6d0ac691a30e1b8', 'demo-scan-004', 'demo.local', 'rack-diagram.png', 'https://demo.example.com/itdocs/files/4', 'OCR_FAILED', 'No text could be recognised in the image.', '2026-11-28 20:14:14.077709+00', 1);


--
-- Data for Name: ingestion_syncconfiguration; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.ingestion_syncconfiguration VALUES ('4283b2c3-4f5b-4151-a547-5ed48af63195', 'wikispace', 'wiki', 'wiki-cred', 'demo.local', '{"space": "ENG"}', '{}', false, 'auto', NULL, true, NULL, '{}', '2026-11-29 00:14:16.048681+00', '2026-11-29 00:14:16.048873+00', '3ab62282-04bf-4894-be49-e3a21c4f3464');


--
-- Data for Name: ingestion_syncrun; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.ingestion_syncrun VALUES ('d5711990-22b7-4679-9f40-9f073ef310f9', 'job-1', 'upload', 'success', false, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, '', '2026-11-29 00:14:16.050649+00', NULL, NULL, 0, '', NULL, false, '{}', '4283b2c3-4f5b-4151-a547-5ed48af63195', '3ab62282-04bf-4894-be49-e3a21c4f3464', '{}');


--
-- Data for Name: ingestion_syncrunitem; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.ingestion_syncrunitem VALUES (1, 'page-1', 'Page', '', 'succeeded', '', '', 0, '2026-11-29 00:14:16.053835+00', 'd5711990-22b7-4679-9f40-9f073ef310f9', '');


--
-- Data for Name: knowledge_chunk; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.knowledge_chunk VALUES (1, 0, 'Business costs you paid yourself are refunded through the expenses app within the following month. Submit each claim within 30 days, with a photo of the itemised receipt; a card slip alone is not enough. Travel is booked through the travel desk: economy class for flights under six hours, standard rooms at the negotiated hotels. Meals while travelling are refunded up to 60 per day, alcohol excepted. Taxis are fine at night or when no public transport runs; otherwise take the train or bus. Client entertainment needs your manager''s approval before the event. Equipment for your home office (a chair, a screen) is refunded up to 400 once every three years. Claims above 1,000 are approved by your manager and then by finance.', 'hash-256', 256, '|all|', '[0,0,0,-0.06415003,0,0,-0.06415003,0,0,0,-0.06415003,0,0.06415003,-0.19245009,-0.06415003,0,0.12830006,0,0,0,0,0,0,-0.06415003,-0.06415003,0,-0.06415003,0,-0.06415003,0,0,-0.06415003,0,-0.06415003,0,-0.06415003,0.12830006,0,0.06415003,0,0,0,0,0,0,0,-0.44905022,-0.2566001,-0.06415003,0,0,0,0,0,-0.06415003,0,0,0,0,0,0,-0.12830006,0,-0.06415003,-0.06415003,0,0,0,0,0,-0.06415003,0,0.06415003,0,0,0,-0.06415003,0,0,0,0,0,0,-0.06415003,0,0,0,0.06415003,0,0,-0.06415003,0.06415003,-0.06415003,0,0.2566001,0,0.06415003,0.19245009,0,0,0,0,0,0.06415003,0,0,0,0,0,-0.06415003,0,0.06415003,0,0,-0.06415003,0.06415003,-0.06415003,-0.06415003,0.06415003,0,0,0,0,-0.06415003,0,0,-0.12830006,0,-0.12830006,0,0,0,0,0.06415003,0,-0.06415003,0,0,0,0,0.06415003,0,-0.06415003,0.06415003,0,0,-0.12830006,0.12830006,0,0,0,0,0,0,0,0,0,0.06415003,-0.06415003,-0.06415003,0,0,-0.06415003,0,0,0,0,0,0,0,0,-0.12830006,-0.06415003,0,0,0,0,0,0,0,0,0.06415003,0,0,0,-0.12830006,0,0.06415003,0.06415003,0,0,0,0,0,0,0,-0.06415003,0,0,0,0,0.06415003,-0.06415003,0,0,0.06415003,0,-0.12830006,0,0,-0.19245009,0,0,0,0,0.06415003,-0.06415003,0,0,0.12830006,0,0.12830006,0.12830006,-0.06415003,0,0,0,0,-0.06415003,0,0,-0.12830006,0,0,0,0,-0.06415003,0,0,0,-0.12830006,0,0,-0.12830006,-0.12830006,0,-0.12830006,0,0,-0.06415003,-0.06415003,0,0.12830006,0,0,0]', '3ab62282-04bf-4894-be49-e3a21c4f3464', '4e98c1d0-c5ed-40e2-acad-d6e5a0a700a1', '');
INSERT INTO public.knowledge_chunk VALUES (2, 0, 'Visitors never join the staff wireless network. The guest network "Example-Guest" is open to anyone in the building but reaches only the internet, not internal systems. Ask the reception for a day pass: the visitor receives a code by text message that is valid until midnight. For events with many guests, request an event code from the service desk two working days ahead, naming the room and the number of attendees. Staff devices connect to "Example-Staff" automatically with your company certificate; if your laptop shows "no certificate", restart it while plugged into a network cable, or open a ticket.', 'hash-256', 256, '|all|', '[0,0,0,0.06551218,0,0,0,0,0,0.06551218,-0.06551218,0,0,0,-0.06551218,0,0,0,0,0,0,0,0,-0.06551218,0,0,0,0,0.06551218,0,0,0,-0.06551218,-0.06551218,0,-0.06551218,-0.06551218,0,0,0,0,0,0,0,0,0,-0.6551218,-0.26204872,0,0,0,0,0.06551218,0,0,0,0,0,0,-0.06551218,0,-0.13102436,-0.13102436,0,0.06551218,0,0.06551218,0,0,0,-0.06551218,0,0,0,0,0,0,0,0,-0.06551218,-0.06551218,0,0,0,0,-0.06551218,0,0,0.06551218,0,0,0,0,0,0,0,0.06551218,0.13102436,0,0,-0.06551218,0,0,0,0,0,-0.06551218,-0.06551218,0,0,0,0,0,0,0,0,0,0,-0.06551218,0,0,0,-0.06551218,-0.06551218,0,-0.06551218,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.06551218,-0.06551218,0,-0.06551218,0,-0.06551218,0.06551218,0,0,0,0,0,0,0,0,0.06551218,0,0,0,0,0,-0.06551218,0,0,0,0,0,0,0,0,-0.13102436,-0.13102436,0,-0.06551218,0,0,0,0,0,0,0,0,0,0,0,-0.06551218,0,0,0,0,0,0,0,-0.19653654,0.19653654,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.19653654,0,0,0,-0.06551218,0,0,0.06551218,0,0,0,0.06551218,0,0,-0.06551218,0,-0.06551218,0,0,0,0,-0.13102436,0,0.06551218,0,0,0,0,-0.06551218,0,-0.26204872,0,0,-0.06551218,0,0,0,-0.13102436,0,0,0,0,0.06551218,0,-0.06551218,0]', '3ab62282-04bf-4894-be49-e3a21c4f3464', '349cbc2f-2970-46c5-b31d-c94e0ce3f149', '');
INSERT INTO public.knowledge_chunk VALUES (3, 0, 'Report a lost or stolen company device at once, day or night: call the service desk on extension 4357 or, from outside, the emergency line printed on the back of your badge. The desk locks the device remotely and, if it is not found within 24 hours, erases it. Disks are encrypted, so the data is safe as long as the device was locked. Change your password afterwards through the self-service portal. For a theft, file a police report and send its reference number to the service desk; the insurance needs it. A replacement laptop is ready the next working day; your files come back from the cloud backup when you sign in. Do not try to track a stolen device yourself.', 'hash-256', 256, '|all|', '[0,-0.10767639,0,0,0,0,-0.053838193,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.053838193,0.053838193,-0.10767639,-0.053838193,0,-0.053838193,0,0,0,0,0,0,0,0,-0.10767639,0.053838193,0,0,0,0,0,0,-0.053838193,0,0,-0.6460583,-0.26919097,0,0,0,0.053838193,0,0,0,0,0,0,0.053838193,0,0,-0.053838193,0,0,0,0,0.053838193,0,0,-0.053838193,0.053838193,0,0,0,0,0,0,0,0.053838193,0,0,0,0,0,0,0,0,0,0.053838193,0,-0.053838193,0,0,0,0.053838193,0.053838193,0,0.16151458,0.10767639,-0.053838193,-0.053838193,0,0,0,0,0,0.053838193,-0.053838193,0,0,0,0.10767639,0,0,0,0,0.053838193,-0.053838193,0,0,0,0.053838193,-0.053838193,-0.10767639,0,0,0,0,-0.16151458,0,0,0,0,0,0,0,-0.053838193,0,0,0,0,0,0,0,0,0,0,0.053838193,0.053838193,0,0,0,0,0,0.053838193,0,0,0,0,-0.053838193,0.053838193,0,-0.16151458,0,0,0,0,0,-0.053838193,0,-0.053838193,-0.053838193,-0.053838193,0,0.053838193,0,0,0,0,0,0,0,0,0,0,0,0,0.10767639,0.053838193,0,0,0,0,0,0,0,0,-0.053838193,0,0,0,0,0,0,0,0,0.053838193,-0.053838193,0,0,-0.26919097,0.053838193,0,-0.053838193,-0.053838193,0,0,0.053838193,0,0.053838193,0.053838193,0,0,0,0,0,0,0,0,0,0,-0.16151458,-0.21535277,-0.053838193,0,0,0,0.053838193,0,0,-0.16151458,0,0,0,0,0.053838193,-0.053838193,0,0,-0.053838193,0,0,0.16151458,0,0.053838193,0]', '3ab62282-04bf-4894-be49-e3a21c4f3464', '05c042ba-5202-4aa7-b8f8-b896b71dd67a', '');
INSERT INTO public.knowledge_chunk VALUES (4, 0, 'Welcome aboard. On your first day, collect your laptop and badge at the reception and sign in with the temporary password from your welcome email; you will be asked to choose your own. Enrol your phone in the authenticator app, which you need for every sign-in from outside. Then complete the mandatory security awareness course in the learning portal during your first week. Your manager has booked an introduction meeting with your team and a buddy who answers everyday questions. Check that your name, title and photo are correct in the staff directory. Ask the service desk for access to the shared drives and applications your role needs; your manager approves each request. Finally, read the expense policy and the code of conduct.', 'hash-256', 256, '|all|', '[0,0,-0.05012547,0,0,0,0,0,0,0,0,-0.05012547,-0.05012547,0,-0.05012547,0,0.05012547,0,0,0,0,0,0.05012547,0,0,0,0,0.05012547,0,-0.05012547,0,0,0,-0.05012547,0,-0.30075282,0,0,0,0,0.05012547,-0.05012547,0,0,0,0,-0.5012547,-0.05012547,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.10025094,-0.05012547,-0.10025094,0,0,0,0,0,0,0,0.05012547,0,0,0,0,0.05012547,0.05012547,0,0.05012547,0.05012547,0,0,0,0,0,0,0,0.05012547,0.05012547,-0.10025094,0,0,-0.05012547,0.05012547,0,0,0.55138016,0,0,0,0,0,0,0.05012547,0,0,0,0,0,0,0,0,0,-0.05012547,0,0,-0.05012547,0,0,0,0.05012547,-0.30075282,-0.15037641,0,0,0,0,0,0,0,0,0,-0.05012547,0,0.05012547,-0.10025094,0,0,0,0,0,0,0,0,0,-0.05012547,0.05012547,0,0,0.05012547,0,0,-0.05012547,0,0,0,0,0,0,0,0,-0.10025094,0.10025094,0,0,0,0,0,0,0,-0.10025094,0,-0.05012547,-0.05012547,0.05012547,0,0,0,0,0,-0.10025094,0,0,0,0,0,0,0,0.05012547,0.05012547,0,0,0,-0.05012547,0,0.05012547,-0.05012547,0,0,0,0,0,0,0,0,0,-0.05012547,0,0,0,0,0,0,0,0,0,0.05012547,-0.05012547,0.05012547,0,0,0,0,0,0,-0.05012547,0,0,0,0,-0.05012547,-0.05012547,-0.05012547,0,0,0,0,-0.05012547,0,-0.10025094,0.05012547,0,0,-0.10025094,0.05012547,0,0,0,0.05012547,0,0,0.10025094,0,0,0]', '3ab62282-04bf-4894-be49-e3a21c4f3464', '7c6cdb7d-4021-4941-afa9-7a95e3ab8d39', '');
INSERT INTO public.knowledge_chunk VALUES (5, 0, 'Company passwords expire every 180 days; you are reminded by email two weeks before. To change a password you still know, press Ctrl+Alt+Del on your laptop and choose "Change a password". If you forgot it or your account is locked after five failed attempts, go to the self-service portal at passwords.example.com from any device, confirm your identity with the authenticator app, and choose a new password. A new password has at least 14 characters and must not repeat any of your last ten. The portal unlocks the account at the same time. If you have lost your phone as well, call the service desk on extension 4357: an agent verifies your identity with your manager before issuing a temporary password.', 'hash-256', 256, '|all|', '[0,0,-0.05944383,0.05944383,0,0,0,0,0,0,-0.05944383,0,0.05944383,0,0.05944383,0,0,-0.11888766,0,0,0,0,0,-0.05944383,-0.11888766,0,0,0,0,0,0,0,0,0,0,-0.1783315,0,0,0.11888766,-0.05944383,0,0,0,0,0.05944383,0,-0.356663,-0.29721916,-0.05944383,0,0,0,0,0,0,0,0,0,0.05944383,0,0,0,0,-0.23777533,0,0.05944383,0,0,0,0.11888766,0,0,0.05944383,0,0,0,0.05944383,-0.05944383,0,0.05944383,0,0.05944383,0,0,0,-0.05944383,0,0,0,0,0,0,0,0,0.05944383,0.05944383,-0.05944383,0.41610682,0,-0.05944383,0,0,0,0,0,-0.11888766,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.11888766,0,-0.05944383,0,0,0,0,-0.05944383,0,0,0,0.05944383,0,0,0.05944383,0,0,0,0,0.11888766,-0.05944383,0,0,0,0,0,0.05944383,0,-0.05944383,0,0,0,0,0,-0.05944383,-0.05944383,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.11888766,-0.11888766,0,0,0.11888766,0,0,0,0,0,-0.05944383,0,0,0,0,0,0.05944383,0.05944383,0,0.11888766,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.05944383,0,0,0,-0.11888766,0,0,0,-0.05944383,0,0,0,0,0.1783315,-0.11888766,0,0,0.11888766,0,0,-0.05944383,0,0,0,0,-0.11888766,-0.05944383,-0.11888766,0,0,0.05944383,0,0.05944383,0,-0.11888766,0,0,-0.05944383,-0.05944383,0.29721916,0,0,0,0,0,0,0.11888766,0,0,0.05944383]', '3ab62282-04bf-4894-be49-e3a21c4f3464', '93ca156c-53a4-4938-9b28-1684edc8a7bd', '');
INSERT INTO public.knowledge_chunk VALUES (6, 0, 'Every floor has a multifunction printer; print jobs are held until you badge in at the device (follow-me printing), so a document never lies in the tray for others to read. If nothing comes out, first check that you chose the queue "FollowMe" and not a printer by name. Badge in again and look for your job in the list on the touch screen. A paper jam is shown with the drawer to open: pull the drawer, remove the sheet gently, close it. A job stuck for more than ten minutes can be cleared from the queue window on your laptop. Toner and paper are in the supply cupboard next to the kitchen. If the screen shows an error code, note it and open a ticket with the service desk, naming the floor and the printer''s asset tag.', 'hash-256', 256, '|all|', '[0.046324108,-0.046324108,0,-0.092648216,0,0,0,0,0.046324108,0,-0.046324108,0,0,0,0,0,0,0,0,0,0.046324108,0,0,-0.046324108,0,0,0,0,-0.046324108,0,0,0,0,0,0,-0.18529643,0.092648216,0,-0.046324108,0,0.13897233,0,0,0,0,0,-0.6948616,-0.27794465,0,0,0,0,0,0,0,0,0,0,0.046324108,0,0,-0.13897233,-0.046324108,-0.092648216,0,0,-0.046324108,-0.046324108,0,0,0,0.046324108,0,0,0,0.046324108,0,0,0,0,-0.046324108,-0.046324108,0,0,0,0,0.046324108,0,0,0,0,0,0,0,0.092648216,0,0.046324108,0.092648216,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.046324108,0,0,-0.092648216,-0.046324108,0,0,0.046324108,-0.23162054,-0.046324108,0.046324108,0,-0.046324108,0,0.046324108,0,0,0,0,-0.046324108,0,0,0,0,0.13897233,0,0,0,0,0.092648216,0.046324108,0,0.092648216,0,0,0,0.046324108,0,0,0,0,0,0,0,0,0.046324108,0.046324108,0,0,0.046324108,0,0,0,0,0,0,0,-0.092648216,-0.092648216,0,0,0,0,0,0,0.046324108,0,0,0,0,-0.046324108,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.13897233,0,0,-0.13897233,0.046324108,0,0,-0.092648216,0,0,0,-0.046324108,0.046324108,-0.046324108,0,0.046324108,-0.046324108,0,0,-0.092648216,0,0.092648216,0,0,0,-0.046324108,-0.092648216,0,0,0,0,-0.046324108,0,-0.13897233,0,0.046324108,-0.046324108,0,0,0,-0.092648216,0,0,-0.046324108,0,0.092648216,0,0.046324108,0.046324108]', '3ab62282-04bf-4894-be49-e3a21c4f3464', '66f426d3-3aa2-49aa-a999-97f43cdf1122', '');
INSERT INTO public.knowledge_chunk VALUES (7, 0, 'Internal systems (the intranet, the file shares, the finance and HR applications) are reachable only from inside the company network. When you work remotely, use the VPN. Install GlobalConnect from the Software Center on your laptop, open it and enter the portal address vpn.example.com. Sign in with your company account and approve the multi-factor prompt on your phone. The icon in the taskbar turns green once the tunnel is up; internal sites then open as if you were at your desk in the office. Disconnect when you are done. If the client says "gateway unreachable", check your home internet connection first, then restart the client. Hotel and airport Wi-Fi may need you to accept their terms in a browser before the VPN can connect.', 'hash-256', 256, '|all|', '[0,0,0.0489116,0,0,-0.0489116,0,0,0,0,0,-0.0489116,0.0489116,0,0,-0.0489116,0,-0.0489116,0,0,0,0,0,0,-0.0978232,0,-0.0978232,0,0,0,0,0,-0.0978232,0,0,-0.1956464,0,0,-0.0489116,0,0.0489116,0,0,0,0,0.0489116,-0.733674,-0.0489116,0,0,0,0,0,-0.0489116,0,0,0,0,-0.0489116,0,0,0,0,-0.1956464,0,0,0,0.0489116,0,0.0978232,0,0.0489116,-0.0489116,0.0489116,0,0,0.0489116,0.0489116,0,0.0489116,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.0489116,0.0978232,0,0,0.2934696,0,0,-0.0978232,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.0978232,0,0,0,0.0489116,0,0,0.0489116,-0.1956464,-0.0978232,0,0,0,0,0,0,-0.0489116,0,0,0,0,0,-0.0489116,0,0,0,0.0489116,0,0,0,0,0,0,0.0489116,0,0,0.0489116,0,0,0,0,0,0.0489116,0,0,-0.0978232,0,0,0,0.0489116,-0.0489116,0,0,0,0,0,0,-0.0489116,-0.0978232,0,0,0,0,0,0,0,0,0,0,0,-0.0489116,0,0,0.0489116,0,0,0,0.0489116,0.0489116,0.0489116,-0.0489116,0.0489116,0,0,0,0,0,0,0,0,0,0.0489116,0,-0.0489116,0,0,-0.0978232,0,0,0,0,0,0,0,0.0489116,0.0489116,0,0.0489116,0,0.0489116,0.0978232,0,0,0,0,0,0,0,-0.0489116,-0.0489116,0,0,-0.0489116,0.0489116,0,0,-0.0978232,0,0,0.0489116,0,-0.0489116,-0.0489116,-0.0978232,0,0,0,0,0.0489116,0,-0.0489116,0]', '3ab62282-04bf-4894-be49-e3a21c4f3464', '0df6a58a-1211-4aeb-905e-fb85df57ebaa', '');


--
-- Data for Name: knowledge_document; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.knowledge_document VALUES ('4e98c1d0-c5ed-40e2-acad-d6e5a0a700a1', 'wikispace', 'wikispace_article', 'demo-handbook-expenses', 'https://demo.invalid/handbook/expenses', 'https://demo.invalid/handbook/expenses', 'Expense policy', 'c5db352e916810e3fc1a9bb62a28ff0c817326bc558a5ee9978e4169cb2b1b34', '["all"]', '{"demo": true, "embedding_model": "hash-256"}', '', 1, '2026-11-29 00:14:14.03133+00', '2026-11-29 00:14:14.031349+00', '3ab62282-04bf-4894-be49-e3a21c4f3464', '[]');
INSERT INTO public.knowledge_document VALUES ('349cbc2f-2970-46c5-b31d-c94e0ce3f149', 'wikispace', 'wikispace_article', 'demo-handbook-guest-wifi', 'https://demo.invalid/handbook/guest-wifi', 'https://demo.invalid/handbook/guest-wifi', 'Wi-Fi for visitors', '8585f892665d1ec8f5fa7e1d965e85b9598af0d28e6e2ce07087cde0b23e50c4', '["all"]', '{"demo": true, "embedding_model": "hash-256"}', '', 1, '2026-11-29 00:14:14.042106+00', '2026-11-29 00:14:14.042134+00', '3ab62282-04bf-4894-be49-e3a21c4f3464', '[]');
INSERT INTO public.knowledge_document VALUES ('05c042ba-5202-4aa7-b8f8-b896b71dd67a', 'wikispace', 'wikispace_article', 'demo-handbook-lost-device', 'https://demo.invalid/handbook/lost-device', 'https://demo.invalid/handbook/lost-device', 'Lost or stolen laptop or phone', '4b7da6b33b0fe1c6376b72271549844653876330848af9a674fea5a3c5e852c2', '["all"]', '{"demo": true, "embedding_model": "hash-256"}', '', 1, '2026-11-29 00:14:14.048828+00', '2026-11-29 00:14:14.048846+00', '3ab62282-04bf-4894-be49-e3a21c4f3464', '[]');
INSERT INTO public.knowledge_document VALUES ('7c6cdb7d-4021-4941-afa9-7a95e3ab8d39', 'wikispace', 'wikispace_article', 'demo-handbook-onboarding', 'https://demo.invalid/handbook/onboarding', 'https://demo.invalid/handbook/onboarding', 'Your first week: onboarding checklist', 'ee8ab2650a48f2204f699584fd3d1e30c0347df8df8c9b7fd99afa3e8566baa7', '["all"]', '{"demo": true, "embedding_model": "hash-256"}', '', 1, '2026-11-29 00:14:14.055079+00', '2026-11-29 00:14:14.055096+00', '3ab62282-04bf-4894-be49-e3a21c4f3464', '[]');
INSERT INTO public.knowledge_document VALUES ('93ca156c-53a4-4938-9b28-1684edc8a7bd', 'wikispace', 'wikispace_article', 'demo-handbook-password-reset', 'https://demo.invalid/handbook/password-reset', 'https://demo.invalid/handbook/password-reset', 'Resetting a forgotten or expired password', '52115b66e4e4ea0414905888fae06c876a846f8369757c3bfc9158198696d13f', '["all"]', '{"demo": true, "embedding_model": "hash-256"}', '', 1, '2026-11-29 00:14:14.061244+00', '2026-11-29 00:14:14.061262+00', '3ab62282-04bf-4894-be49-e3a21c4f3464', '[]');
INSERT INTO public.knowledge_document VALUES ('66f426d3-3aa2-49aa-a999-97f43cdf1122', 'wikispace', 'wikispace_article', 'demo-handbook-printer', 'https://demo.invalid/handbook/printer', 'https://demo.invalid/handbook/printer', 'Printer troubleshooting', '0a44f245578de3847d3fc97d301b359ee60158c7657476b2c3bb4ef8008b9528', '["all"]', '{"demo": true, "embedding_model": "hash-256"}', '', 1, '2026-11-29 00:14:14.06733+00', '2026-11-29 00:14:14.067347+00', '3ab62282-04bf-4894-be49-e3a21c4f3464', '[]');
INSERT INTO public.knowledge_document VALUES ('0df6a58a-1211-4aeb-905e-fb85df57ebaa', 'wikispace', 'wikispace_article', 'demo-handbook-vpn', 'https://demo.invalid/handbook/vpn', 'https://demo.invalid/handbook/vpn', 'VPN: working from home or on the road', 'cb9c3e1ee0d158942242b72c1591461c4f3764fc632ce928ba2c759753f861db', '["all"]', '{"demo": true, "embedding_model": "hash-256"}', '', 1, '2026-11-29 00:14:14.071604+00', '2026-11-29 00:14:14.071616+00', '3ab62282-04bf-4894-be49-e3a21c4f3464', '[]');


--
-- Data for Name: knowledge_sourcerule; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.knowledge_sourcerule VALUES ('6938f66b-fc92-40e3-aef8-8336670362a3', 'block', 'site', 'https://demo.example.com/sites/finance', '[]', 'Demo: finance never reaches the knowledge base (applied with blacklisted=true).', '2026-11-29 00:14:14.0089+00', '2026-11-29 00:14:14.008915+00', '3ab62282-04bf-4894-be49-e3a21c4f3464');
INSERT INTO public.knowledge_sourcerule VALUES ('33c2c723-009e-4917-91ba-9eac2744ad33', 'allow', 'site', 'https://demo.example.com/sites/hr', '["hr"]', 'Demo: with source_restriction=true, the hr audience sees only this site.', '2026-11-29 00:14:14.012224+00', '2026-11-29 00:14:14.012239+00', '3ab62282-04bf-4894-be49-e3a21c4f3464');


--
-- Data for Name: oauth2_provider_accesstoken; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.oauth2_provider_accesstoken VALUES (1, 'oat_upgrade', '2026-11-29 01:14:15.980094+00', 'vault:read', 'b1711a7e-ab9c-4b15-ad97-df33b6d9e4b5', '9b6ac0b1-8468-4bf1-b1ab-57b65040a074', '2026-11-29 00:14:16.042398+00', '2026-11-29 00:14:16.042405+00', NULL, 1, '7bbb8fd766ea4ab4aebc4e6cc83056a79ad817e80e6ed559a72eee4ab15db203', '[]');


--
-- Data for Name: oauth2_provider_devicegrant; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.oauth2_provider_devicegrant VALUES (1, 'dev-1', 'USER-1', 'vault:read', 5, '2026-11-29 00:19:15.980094+00', 'authorization-pending', 'cid-upgrade', '2026-11-29 00:14:16.047167+00', NULL);


--
-- Data for Name: oauth2_provider_grant; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.oauth2_provider_grant VALUES (1, 'code-1', '2026-11-29 00:19:15.980094+00', 'https://app.example.com/cb', 'vault:read', 'b1711a7e-ab9c-4b15-ad97-df33b6d9e4b5', '9b6ac0b1-8468-4bf1-b1ab-57b65040a074', '2026-11-29 00:14:16.037871+00', '2026-11-29 00:14:16.037877+00', 'ccccccccccccccccccccccccccccccccccccccccccc', 'S256', '', '', '[]');


--
-- Data for Name: oauth2_provider_idtoken; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.oauth2_provider_idtoken VALUES (1, '041da929-4bb0-4aa2-b1b0-14a9922ebce3', '2026-11-29 01:14:15.980094+00', 'openid', '2026-11-29 00:14:16.040304+00', '2026-11-29 00:14:16.04031+00', 'b1711a7e-ab9c-4b15-ad97-df33b6d9e4b5', '9b6ac0b1-8468-4bf1-b1ab-57b65040a074');


--
-- Data for Name: oauth2_provider_refreshtoken; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.oauth2_provider_refreshtoken VALUES (1, 'ort_upgrade', 1, 'b1711a7e-ab9c-4b15-ad97-df33b6d9e4b5', '9b6ac0b1-8468-4bf1-b1ab-57b65040a074', '2026-11-29 00:14:16.044998+00', '2026-11-29 00:14:16.045007+00', NULL, NULL, '5932435ac85b8b3543475e0c8774b6bb97d904ca74de8d4695407d33237e110b', '[]');


--
-- Data for Name: toolhub_approval; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.toolhub_approval VALUES ('f1e266b2-09c6-415c-95a0-caf3b781e4c6', 'itsm.ticket.delete', 'destructive', 'k1', 'ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', '{}', '{"id": "x"}', 'api_key:x', '', 'pending', '', '{}', NULL, NULL, '2026-11-30 00:14:15.980094+00', '', '2026-11-29 00:14:16.061803+00', '3ab62282-04bf-4894-be49-e3a21c4f3464', '1f162d78-9218-4fae-b597-deb22c2ade8a', '');


--
-- Data for Name: toolhub_approvalpolicy; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.toolhub_approvalpolicy VALUES (1, '[]', '[]', '[]', '2026-11-29 00:14:16.05637+00', '3ab62282-04bf-4894-be49-e3a21c4f3464');


--
-- Data for Name: toolhub_connection; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.toolhub_connection VALUES ('1f162d78-9218-4fae-b597-deb22c2ade8a', 'demo-knowledge', 'knowledge', 'knowledge', '', '', true, '{}', 'active', NULL, '2026-11-29 00:14:14.088772+00', '2026-11-29 00:14:14.091976+00', '{"id": "system:seed_demo", "name": "seed_demo", "type": "system"}', '3ab62282-04bf-4894-be49-e3a21c4f3464', 'unknown', '');


--
-- Data for Name: toolhub_executionrecord; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.toolhub_executionrecord VALUES ('519a8e43-474d-4f83-9917-369b5f85468b', '', '{"id": "x"}', 'api_key:x', 'knowledge.documents.search', '', 'success', '', 200, 0, NULL, '{}', '', '', '2026-11-29 00:14:16.067767+00', '3ab62282-04bf-4894-be49-e3a21c4f3464');


--
-- Data for Name: toolhub_idempotencyrecord; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.toolhub_idempotencyrecord VALUES (1, 'api_key:x', 'k1', 'ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', 'itsm.ticket.delete', 'awaiting_approval', NULL, NULL, NULL, '2026-11-29 00:14:16.064882+00', NULL, '2026-11-30 00:14:15.980094+00', 'f1e266b2-09c6-415c-95a0-caf3b781e4c6', '3ab62282-04bf-4894-be49-e3a21c4f3464', NULL);


--
-- Data for Name: vault_credential; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.vault_credential VALUES ('cbb8a745-3e6d-452f-8a25-b901baae4497', 'itsm-demo-001', 'Demo ITSM instance', 'Demo credential created by seed_demo.', 'api_key', '["tickets.read"]', 'active', '', '', '{"environment": "demo", "rotationDays": 90}', 'v1:1:8RKi0EdvL++ff89vI9dbPV9RTDSSb+T2Z8cRLCZ0WmTiUZGtWP2CTETr3x+uD4hFzGMSzupF9Hq+BlhqJsSlvZw=', NULL, NULL, 1, NULL, false, '2026-11-29 00:14:13.985884+00', '{"id": "system:seed_demo", "name": "seed_demo", "email": ""}', NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '3ab62282-04bf-4894-be49-e3a21c4f3464');


--
-- Data for Name: vault_credentialtally; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.vault_credentialtally VALUES (1, 7, 1, '3ab62282-04bf-4894-be49-e3a21c4f3464');


--
-- Data for Name: vault_datakey; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.vault_datakey VALUES (1, 1, 'test1', '5IrJBRA3fvkUi/7OzPF+hOGCxJMolfU+yDmxYCHOAtNQ1DtJHhLJ2JWtOL1+4hoXdxURuSJdFgi4QxNC', 'active', '2026-11-29 00:14:13.993746+00', NULL, '3ab62282-04bf-4894-be49-e3a21c4f3464');


--
-- Data for Name: vault_dekrotation; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.vault_dekrotation VALUES ('298f22f8-a643-4ab9-a089-4ae1ced31f15', 1, 2, 'completed', 0, 0, 0, NULL, '{"id": "x"}', '2026-11-29 00:14:16.070234+00', NULL, '', '3ab62282-04bf-4894-be49-e3a21c4f3464');


--
-- Data for Name: vault_masterkeyfingerprint; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.vault_masterkeyfingerprint VALUES ('test1', '95a045774125cb413754b46f7617ab695b1e23f33a790b1fb3341b8b97fd1aac', '2026-11-29 00:14:13.989773+00');


--
-- Name: adminops_membership_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.adminops_membership_id_seq', 5, true);


--
-- Name: adminops_user_groups_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.adminops_user_groups_id_seq', 1, true);


--
-- Name: adminops_user_user_permissions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.adminops_user_user_permissions_id_seq', 1, true);


--
-- Name: auth_group_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.auth_group_id_seq', 1, true);


--
-- Name: auth_group_permissions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.auth_group_permissions_id_seq', 1, true);


--
-- Name: auth_permission_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.auth_permission_id_seq', 156, true);


--
-- Name: django_admin_log_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.django_admin_log_id_seq', 1, true);


--
-- Name: django_content_type_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.django_content_type_id_seq', 39, true);


--
-- Name: django_migrations_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.django_migrations_id_seq', 63, true);


--
-- Name: ingestion_failedfilerow_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.ingestion_failedfilerow_id_seq', 4, true);


--
-- Name: ingestion_syncrunitem_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.ingestion_syncrunitem_id_seq', 1, true);


--
-- Name: knowledge_chunk_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.knowledge_chunk_id_seq', 7, true);


--
-- Name: oauth2_provider_accesstoken_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.oauth2_provider_accesstoken_id_seq', 1, true);


--
-- Name: oauth2_provider_devicegrant_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.oauth2_provider_devicegrant_id_seq', 1, true);


--
-- Name: oauth2_provider_grant_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.oauth2_provider_grant_id_seq', 1, true);


--
-- Name: oauth2_provider_idtoken_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.oauth2_provider_idtoken_id_seq', 1, true);


--
-- Name: oauth2_provider_refreshtoken_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.oauth2_provider_refreshtoken_id_seq', 1, true);


--
-- Name: toolhub_approvalpolicy_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.toolhub_approvalpolicy_id_seq', 1, true);


--
-- Name: toolhub_idempotencyrecord_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.toolhub_idempotencyrecord_id_seq', 1, true);


--
-- Name: vault_credentialtally_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.vault_credentialtally_id_seq', 1, true);


--
-- Name: vault_datakey_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.vault_datakey_id_seq', 1, true);


--
-- Name: adminops_apikey adminops_apikey_key_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_apikey
    ADD CONSTRAINT adminops_apikey_key_hash_key UNIQUE (key_hash);


--
-- Name: adminops_apikey adminops_apikey_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_apikey
    ADD CONSTRAINT adminops_apikey_pkey PRIMARY KEY (id);


--
-- Name: adminops_auditarchive adminops_auditarchive_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_auditarchive
    ADD CONSTRAINT adminops_auditarchive_pkey PRIMARY KEY (id);


--
-- Name: adminops_auditchainhead adminops_auditchainhead_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_auditchainhead
    ADD CONSTRAINT adminops_auditchainhead_pkey PRIMARY KEY (chain);


--
-- Name: adminops_auditentry adminops_auditentry_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_auditentry
    ADD CONSTRAINT adminops_auditentry_pkey PRIMARY KEY (id);


--
-- Name: adminops_identityrealm adminops_identityrealm_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_identityrealm
    ADD CONSTRAINT adminops_identityrealm_pkey PRIMARY KEY (id);


--
-- Name: adminops_jobrun adminops_jobrun_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_jobrun
    ADD CONSTRAINT adminops_jobrun_pkey PRIMARY KEY (id);


--
-- Name: adminops_membership adminops_membership_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_membership
    ADD CONSTRAINT adminops_membership_pkey PRIMARY KEY (id);


--
-- Name: adminops_oauthclient adminops_oauthclient_client_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_oauthclient
    ADD CONSTRAINT adminops_oauthclient_client_id_key UNIQUE (client_id);


--
-- Name: adminops_oauthclient adminops_oauthclient_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_oauthclient
    ADD CONSTRAINT adminops_oauthclient_pkey PRIMARY KEY (id);


--
-- Name: adminops_serviceaccount adminops_serviceaccount_oauth_client_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_serviceaccount
    ADD CONSTRAINT adminops_serviceaccount_oauth_client_id_key UNIQUE (oauth_client_id);


--
-- Name: adminops_serviceaccount adminops_serviceaccount_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_serviceaccount
    ADD CONSTRAINT adminops_serviceaccount_pkey PRIMARY KEY (id);


--
-- Name: adminops_tenant adminops_tenant_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_tenant
    ADD CONSTRAINT adminops_tenant_name_key UNIQUE (name);


--
-- Name: adminops_tenant adminops_tenant_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_tenant
    ADD CONSTRAINT adminops_tenant_pkey PRIMARY KEY (id);


--
-- Name: adminops_usagereport adminops_usagereport_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_usagereport
    ADD CONSTRAINT adminops_usagereport_pkey PRIMARY KEY (id);


--
-- Name: adminops_user_groups adminops_user_groups_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_user_groups
    ADD CONSTRAINT adminops_user_groups_pkey PRIMARY KEY (id);


--
-- Name: adminops_user_groups adminops_user_groups_user_id_group_id_25246a69_uniq; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_user_groups
    ADD CONSTRAINT adminops_user_groups_user_id_group_id_25246a69_uniq UNIQUE (user_id, group_id);


--
-- Name: adminops_user adminops_user_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_user
    ADD CONSTRAINT adminops_user_pkey PRIMARY KEY (id);


--
-- Name: adminops_user_user_permissions adminops_user_user_permi_user_id_permission_id_02dbfccd_uniq; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_user_user_permissions
    ADD CONSTRAINT adminops_user_user_permi_user_id_permission_id_02dbfccd_uniq UNIQUE (user_id, permission_id);


--
-- Name: adminops_user_user_permissions adminops_user_user_permissions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_user_user_permissions
    ADD CONSTRAINT adminops_user_user_permissions_pkey PRIMARY KEY (id);


--
-- Name: adminops_user adminops_user_username_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_user
    ADD CONSTRAINT adminops_user_username_key UNIQUE (username);


--
-- Name: adminops_apikey api_key_tenant_name_unique; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_apikey
    ADD CONSTRAINT api_key_tenant_name_unique UNIQUE (tenant_id, name);


--
-- Name: adminops_auditarchive audit_archive_chain_start; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_auditarchive
    ADD CONSTRAINT audit_archive_chain_start UNIQUE (chain, first_seq);


--
-- Name: adminops_auditentry audit_chain_seq_unique; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_auditentry
    ADD CONSTRAINT audit_chain_seq_unique UNIQUE (chain, seq);


--
-- Name: auth_group auth_group_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_group
    ADD CONSTRAINT auth_group_name_key UNIQUE (name);


--
-- Name: auth_group_permissions auth_group_permissions_group_id_permission_id_0cd325b0_uniq; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_group_permissions
    ADD CONSTRAINT auth_group_permissions_group_id_permission_id_0cd325b0_uniq UNIQUE (group_id, permission_id);


--
-- Name: auth_group_permissions auth_group_permissions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_group_permissions
    ADD CONSTRAINT auth_group_permissions_pkey PRIMARY KEY (id);


--
-- Name: auth_group auth_group_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_group
    ADD CONSTRAINT auth_group_pkey PRIMARY KEY (id);


--
-- Name: auth_permission auth_permission_content_type_id_codename_01ab375a_uniq; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_permission
    ADD CONSTRAINT auth_permission_content_type_id_codename_01ab375a_uniq UNIQUE (content_type_id, codename);


--
-- Name: auth_permission auth_permission_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_permission
    ADD CONSTRAINT auth_permission_pkey PRIMARY KEY (id);


--
-- Name: knowledge_chunk chunk_unique_ordinal; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge_chunk
    ADD CONSTRAINT chunk_unique_ordinal UNIQUE (document_id, ordinal);


--
-- Name: toolhub_connection connection_tenant_name_unique; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_connection
    ADD CONSTRAINT connection_tenant_name_unique UNIQUE (tenant_id, name);


--
-- Name: vault_credentialtally credential_tally_tenant_slot; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_credentialtally
    ADD CONSTRAINT credential_tally_tenant_slot UNIQUE (tenant_id, slot);


--
-- Name: vault_datakey datakey_tenant_version_unique; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_datakey
    ADD CONSTRAINT datakey_tenant_version_unique UNIQUE (tenant_id, version);


--
-- Name: django_admin_log django_admin_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_admin_log
    ADD CONSTRAINT django_admin_log_pkey PRIMARY KEY (id);


--
-- Name: django_content_type django_content_type_app_label_model_76bd3d3b_uniq; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_content_type
    ADD CONSTRAINT django_content_type_app_label_model_76bd3d3b_uniq UNIQUE (app_label, model);


--
-- Name: django_content_type django_content_type_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_content_type
    ADD CONSTRAINT django_content_type_pkey PRIMARY KEY (id);


--
-- Name: django_migrations django_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_migrations
    ADD CONSTRAINT django_migrations_pkey PRIMARY KEY (id);


--
-- Name: django_session django_session_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_session
    ADD CONSTRAINT django_session_pkey PRIMARY KEY (session_key);


--
-- Name: knowledge_document document_unique_source; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge_document
    ADD CONSTRAINT document_unique_source UNIQUE (tenant_id, platform_type, source_id);


--
-- Name: ingestion_failedfilerow failed_file_unique_file; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ingestion_failedfilerow
    ADD CONSTRAINT failed_file_unique_file UNIQUE (tenant_id, content_type, file_key);


--
-- Name: toolhub_idempotencyrecord idempotency_scope_unique; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_idempotencyrecord
    ADD CONSTRAINT idempotency_scope_unique UNIQUE (tenant_id, principal_key, key);


--
-- Name: adminops_identityrealm identity_realm_tenant_name_unique; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_identityrealm
    ADD CONSTRAINT identity_realm_tenant_name_unique UNIQUE (tenant_id, name);


--
-- Name: ingestion_failedfilerow ingestion_failedfilerow_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ingestion_failedfilerow
    ADD CONSTRAINT ingestion_failedfilerow_pkey PRIMARY KEY (id);


--
-- Name: ingestion_syncconfiguration ingestion_syncconfiguration_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ingestion_syncconfiguration
    ADD CONSTRAINT ingestion_syncconfiguration_pkey PRIMARY KEY (id);


--
-- Name: ingestion_syncrun ingestion_syncrun_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ingestion_syncrun
    ADD CONSTRAINT ingestion_syncrun_pkey PRIMARY KEY (id);


--
-- Name: ingestion_syncrunitem ingestion_syncrunitem_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ingestion_syncrunitem
    ADD CONSTRAINT ingestion_syncrunitem_pkey PRIMARY KEY (id);


--
-- Name: knowledge_chunk knowledge_chunk_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge_chunk
    ADD CONSTRAINT knowledge_chunk_pkey PRIMARY KEY (id);


--
-- Name: knowledge_document knowledge_document_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge_document
    ADD CONSTRAINT knowledge_document_pkey PRIMARY KEY (id);


--
-- Name: knowledge_sourcerule knowledge_sourcerule_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge_sourcerule
    ADD CONSTRAINT knowledge_sourcerule_pkey PRIMARY KEY (id);


--
-- Name: adminops_membership membership_user_tenant_unique; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_membership
    ADD CONSTRAINT membership_user_tenant_unique UNIQUE (user_id, tenant_id);


--
-- Name: oauth2_provider_accesstoken oauth2_provider_accesstoken_id_token_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_accesstoken
    ADD CONSTRAINT oauth2_provider_accesstoken_id_token_id_key UNIQUE (id_token_id);


--
-- Name: oauth2_provider_accesstoken oauth2_provider_accesstoken_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_accesstoken
    ADD CONSTRAINT oauth2_provider_accesstoken_pkey PRIMARY KEY (id);


--
-- Name: oauth2_provider_accesstoken oauth2_provider_accesstoken_source_refresh_token_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_accesstoken
    ADD CONSTRAINT oauth2_provider_accesstoken_source_refresh_token_id_key UNIQUE (source_refresh_token_id);


--
-- Name: oauth2_provider_accesstoken oauth2_provider_accesstoken_token_checksum_85319a26_uniq; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_accesstoken
    ADD CONSTRAINT oauth2_provider_accesstoken_token_checksum_85319a26_uniq UNIQUE (token_checksum);


--
-- Name: oauth2_provider_devicegrant oauth2_provider_devicegrant_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_devicegrant
    ADD CONSTRAINT oauth2_provider_devicegrant_pkey PRIMARY KEY (id);


--
-- Name: oauth2_provider_devicegrant oauth2_provider_devicegrant_unique_device_code; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_devicegrant
    ADD CONSTRAINT oauth2_provider_devicegrant_unique_device_code UNIQUE (device_code);


--
-- Name: oauth2_provider_grant oauth2_provider_grant_code_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_grant
    ADD CONSTRAINT oauth2_provider_grant_code_key UNIQUE (code);


--
-- Name: oauth2_provider_grant oauth2_provider_grant_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_grant
    ADD CONSTRAINT oauth2_provider_grant_pkey PRIMARY KEY (id);


--
-- Name: oauth2_provider_idtoken oauth2_provider_idtoken_jti_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_idtoken
    ADD CONSTRAINT oauth2_provider_idtoken_jti_key UNIQUE (jti);


--
-- Name: oauth2_provider_idtoken oauth2_provider_idtoken_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_idtoken
    ADD CONSTRAINT oauth2_provider_idtoken_pkey PRIMARY KEY (id);


--
-- Name: oauth2_provider_refreshtoken oauth2_provider_refresht_token_checksum_revoked_46c81d1d_uniq; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_refreshtoken
    ADD CONSTRAINT oauth2_provider_refresht_token_checksum_revoked_46c81d1d_uniq UNIQUE (token_checksum, revoked);


--
-- Name: oauth2_provider_refreshtoken oauth2_provider_refreshtoken_access_token_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_refreshtoken
    ADD CONSTRAINT oauth2_provider_refreshtoken_access_token_id_key UNIQUE (access_token_id);


--
-- Name: oauth2_provider_refreshtoken oauth2_provider_refreshtoken_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_refreshtoken
    ADD CONSTRAINT oauth2_provider_refreshtoken_pkey PRIMARY KEY (id);


--
-- Name: adminops_serviceaccount service_account_tenant_name_unique; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_serviceaccount
    ADD CONSTRAINT service_account_tenant_name_unique UNIQUE (tenant_id, name);


--
-- Name: knowledge_sourcerule source_rule_unique; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge_sourcerule
    ADD CONSTRAINT source_rule_unique UNIQUE (tenant_id, kind, target, value);


--
-- Name: ingestion_syncrunitem sync_run_item_once; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ingestion_syncrunitem
    ADD CONSTRAINT sync_run_item_once UNIQUE (run_id, item_key);


--
-- Name: toolhub_approval toolhub_approval_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_approval
    ADD CONSTRAINT toolhub_approval_pkey PRIMARY KEY (id);


--
-- Name: toolhub_approvalpolicy toolhub_approvalpolicy_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_approvalpolicy
    ADD CONSTRAINT toolhub_approvalpolicy_pkey PRIMARY KEY (id);


--
-- Name: toolhub_approvalpolicy toolhub_approvalpolicy_tenant_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_approvalpolicy
    ADD CONSTRAINT toolhub_approvalpolicy_tenant_id_key UNIQUE (tenant_id);


--
-- Name: toolhub_connection toolhub_connection_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_connection
    ADD CONSTRAINT toolhub_connection_pkey PRIMARY KEY (id);


--
-- Name: toolhub_executionrecord toolhub_executionrecord_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_executionrecord
    ADD CONSTRAINT toolhub_executionrecord_pkey PRIMARY KEY (id);


--
-- Name: toolhub_idempotencyrecord toolhub_idempotencyrecord_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_idempotencyrecord
    ADD CONSTRAINT toolhub_idempotencyrecord_pkey PRIMARY KEY (id);


--
-- Name: adminops_usagereport usage_report_tenant_month; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_usagereport
    ADD CONSTRAINT usage_report_tenant_month UNIQUE (tenant_id, period_start);


--
-- Name: vault_credential vault_credential_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_credential
    ADD CONSTRAINT vault_credential_pkey PRIMARY KEY (id);


--
-- Name: vault_credentialtally vault_credentialtally_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_credentialtally
    ADD CONSTRAINT vault_credentialtally_pkey PRIMARY KEY (id);


--
-- Name: vault_datakey vault_datakey_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_datakey
    ADD CONSTRAINT vault_datakey_pkey PRIMARY KEY (id);


--
-- Name: vault_dekrotation vault_dekrotation_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_dekrotation
    ADD CONSTRAINT vault_dekrotation_pkey PRIMARY KEY (id);


--
-- Name: vault_masterkeyfingerprint vault_masterkeyfingerprint_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_masterkeyfingerprint
    ADD CONSTRAINT vault_masterkeyfingerprint_pkey PRIMARY KEY (key_id);


--
-- Name: adminops_apikey_created_by_id_da5ea8f0; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_apikey_created_by_id_da5ea8f0 ON public.adminops_apikey USING btree (created_by_id);


--
-- Name: adminops_apikey_key_hash_58f27053_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_apikey_key_hash_58f27053_like ON public.adminops_apikey USING btree (key_hash varchar_pattern_ops);


--
-- Name: adminops_apikey_previous_key_hash_6237f4fc; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_apikey_previous_key_hash_6237f4fc ON public.adminops_apikey USING btree (previous_key_hash);


--
-- Name: adminops_apikey_previous_key_hash_6237f4fc_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_apikey_previous_key_hash_6237f4fc_like ON public.adminops_apikey USING btree (previous_key_hash varchar_pattern_ops);


--
-- Name: adminops_apikey_rotated_by_id_a43381b1; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_apikey_rotated_by_id_a43381b1 ON public.adminops_apikey USING btree (rotated_by_id);


--
-- Name: adminops_apikey_tenant_id_6313b767; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_apikey_tenant_id_6313b767 ON public.adminops_apikey USING btree (tenant_id);


--
-- Name: adminops_apikey_updated_by_id_3e7b1ac1; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_apikey_updated_by_id_3e7b1ac1 ON public.adminops_apikey USING btree (updated_by_id);


--
-- Name: adminops_auditchainhead_chain_14d1eb18_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_auditchainhead_chain_14d1eb18_like ON public.adminops_auditchainhead USING btree (chain varchar_pattern_ops);


--
-- Name: adminops_identityrealm_tenant_id_2db90fff; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_identityrealm_tenant_id_2db90fff ON public.adminops_identityrealm USING btree (tenant_id);


--
-- Name: adminops_membership_tenant_id_3dfab549; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_membership_tenant_id_3dfab549 ON public.adminops_membership USING btree (tenant_id);


--
-- Name: adminops_membership_user_id_4db08720; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_membership_user_id_4db08720 ON public.adminops_membership USING btree (user_id);


--
-- Name: adminops_oauthclient_client_id_d0daabf5_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_oauthclient_client_id_d0daabf5_like ON public.adminops_oauthclient USING btree (client_id varchar_pattern_ops);


--
-- Name: adminops_oauthclient_client_secret_cbfb3a2b; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_oauthclient_client_secret_cbfb3a2b ON public.adminops_oauthclient USING btree (client_secret);


--
-- Name: adminops_oauthclient_client_secret_cbfb3a2b_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_oauthclient_client_secret_cbfb3a2b_like ON public.adminops_oauthclient USING btree (client_secret varchar_pattern_ops);


--
-- Name: adminops_oauthclient_tenant_id_73fd159c; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_oauthclient_tenant_id_73fd159c ON public.adminops_oauthclient USING btree (tenant_id);


--
-- Name: adminops_oauthclient_user_id_816c1062; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_oauthclient_user_id_816c1062 ON public.adminops_oauthclient USING btree (user_id);


--
-- Name: adminops_serviceaccount_tenant_id_79385df3; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_serviceaccount_tenant_id_79385df3 ON public.adminops_serviceaccount USING btree (tenant_id);


--
-- Name: adminops_tenant_name_b11e9cb6_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_tenant_name_b11e9cb6_like ON public.adminops_tenant USING btree (name varchar_pattern_ops);


--
-- Name: adminops_usagereport_tenant_id_f4db7085; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_usagereport_tenant_id_f4db7085 ON public.adminops_usagereport USING btree (tenant_id);


--
-- Name: adminops_user_groups_group_id_5d0733cb; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_user_groups_group_id_5d0733cb ON public.adminops_user_groups USING btree (group_id);


--
-- Name: adminops_user_groups_user_id_557c3252; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_user_groups_user_id_557c3252 ON public.adminops_user_groups USING btree (user_id);


--
-- Name: adminops_user_user_permissions_permission_id_85f8831c; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_user_user_permissions_permission_id_85f8831c ON public.adminops_user_user_permissions USING btree (permission_id);


--
-- Name: adminops_user_user_permissions_user_id_c5155b4b; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_user_user_permissions_user_id_c5155b4b ON public.adminops_user_user_permissions USING btree (user_id);


--
-- Name: adminops_user_username_0d97462b_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX adminops_user_username_0d97462b_like ON public.adminops_user USING btree (username varchar_pattern_ops);


--
-- Name: approval_status_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_status_expiry ON public.toolhub_approval USING btree (status, expires_at);


--
-- Name: approval_tenant_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_tenant_status ON public.toolhub_approval USING btree (tenant_id, status, created_at DESC);


--
-- Name: audit_action; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_action ON public.adminops_auditentry USING btree (action);


--
-- Name: audit_archive_tenant; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_archive_tenant ON public.adminops_auditarchive USING btree (tenant_id, created_at DESC);


--
-- Name: audit_tenant_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_tenant_time ON public.adminops_auditentry USING btree (tenant_id, "timestamp" DESC);


--
-- Name: auth_group_name_a6ea08ec_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_group_name_a6ea08ec_like ON public.auth_group USING btree (name varchar_pattern_ops);


--
-- Name: auth_group_permissions_group_id_b120cbf9; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_group_permissions_group_id_b120cbf9 ON public.auth_group_permissions USING btree (group_id);


--
-- Name: auth_group_permissions_permission_id_84c5c92e; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_group_permissions_permission_id_84c5c92e ON public.auth_group_permissions USING btree (permission_id);


--
-- Name: auth_permission_content_type_id_2f476e4b; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_permission_content_type_id_2f476e4b ON public.auth_permission USING btree (content_type_id);


--
-- Name: chunk_embedding_384_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX chunk_embedding_384_hnsw ON public.knowledge_chunk USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WHERE (dimension = 384);


--
-- Name: chunk_tenant_model; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX chunk_tenant_model ON public.knowledge_chunk USING btree (tenant_id, model, dimension);


--
-- Name: connection_one_default; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX connection_one_default ON public.toolhub_connection USING btree (tenant_id, domain) WHERE is_default;


--
-- Name: connection_tenant_domain; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX connection_tenant_domain ON public.toolhub_connection USING btree (tenant_id, domain);


--
-- Name: credential_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credential_expiry ON public.vault_credential USING btree (is_expired, expires_at);


--
-- Name: credential_one_live_per_integration; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX credential_one_live_per_integration ON public.vault_credential USING btree (tenant_id, integration_id) WHERE (NOT ((status)::text = 'deleted'::text));


--
-- Name: credential_tenant_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credential_tenant_created ON public.vault_credential USING btree (tenant_id, created_at DESC);


--
-- Name: credential_tenant_integration; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credential_tenant_integration ON public.vault_credential USING btree (tenant_id, integration_id);


--
-- Name: datakey_one_active_per_tenant; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX datakey_one_active_per_tenant ON public.vault_datakey USING btree (tenant_id) WHERE ((status)::text = 'active'::text);


--
-- Name: dek_rotation_one_running; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX dek_rotation_one_running ON public.vault_dekrotation USING btree (tenant_id) WHERE ((status)::text = 'in_progress'::text);


--
-- Name: django_admin_log_content_type_id_c4bce8eb; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX django_admin_log_content_type_id_c4bce8eb ON public.django_admin_log USING btree (content_type_id);


--
-- Name: django_admin_log_user_id_c564eba6; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX django_admin_log_user_id_c564eba6 ON public.django_admin_log USING btree (user_id);


--
-- Name: django_session_expire_date_a5c62663; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX django_session_expire_date_a5c62663 ON public.django_session USING btree (expire_date);


--
-- Name: django_session_session_key_c0390e0f_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX django_session_session_key_c0390e0f_like ON public.django_session USING btree (session_key varchar_pattern_ops);


--
-- Name: document_tenant_config; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_tenant_config ON public.knowledge_document USING btree (tenant_id, sync_configuration_id);


--
-- Name: document_tenant_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_tenant_updated ON public.knowledge_document USING btree (tenant_id, updated_at DESC);


--
-- Name: document_tenant_url; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_tenant_url ON public.knowledge_document USING btree (tenant_id, source_url_key text_pattern_ops);


--
-- Name: execution_tenant_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX execution_tenant_time ON public.toolhub_executionrecord USING btree (tenant_id, created_at DESC);


--
-- Name: failed_file_listing; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX failed_file_listing ON public.ingestion_failedfilerow USING btree (tenant_id, content_type, failed_at DESC);


--
-- Name: failed_file_retention; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX failed_file_retention ON public.ingestion_failedfilerow USING btree (failed_at);


--
-- Name: idempotency_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idempotency_expiry ON public.toolhub_idempotencyrecord USING btree (expires_at);


--
-- Name: identity_realm_name_issuer; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX identity_realm_name_issuer ON public.adminops_identityrealm USING btree (name, issuer);


--
-- Name: ingestion_syncconfiguration_tenant_id_1179d008; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ingestion_syncconfiguration_tenant_id_1179d008 ON public.ingestion_syncconfiguration USING btree (tenant_id);


--
-- Name: ingestion_syncrun_configuration_id_9363b724; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ingestion_syncrun_configuration_id_9363b724 ON public.ingestion_syncrun USING btree (configuration_id);


--
-- Name: ingestion_syncrun_tenant_id_ddfa745b; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ingestion_syncrun_tenant_id_ddfa745b ON public.ingestion_syncrun USING btree (tenant_id);


--
-- Name: ingestion_syncrunitem_run_id_b8fc90a6; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ingestion_syncrunitem_run_id_b8fc90a6 ON public.ingestion_syncrunitem USING btree (run_id);


--
-- Name: jobrun_name_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobrun_name_time ON public.adminops_jobrun USING btree (job_name, queued_at DESC);


--
-- Name: knowledge_chunk_document_id_9855d8fa; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX knowledge_chunk_document_id_9855d8fa ON public.knowledge_chunk USING btree (document_id);


--
-- Name: knowledge_chunk_tenant_id_f8844a6e; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX knowledge_chunk_tenant_id_f8844a6e ON public.knowledge_chunk USING btree (tenant_id);


--
-- Name: knowledge_document_tenant_id_6c2d18c7; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX knowledge_document_tenant_id_6c2d18c7 ON public.knowledge_document USING btree (tenant_id);


--
-- Name: knowledge_sourcerule_tenant_id_9037dfe3; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX knowledge_sourcerule_tenant_id_9037dfe3 ON public.knowledge_sourcerule USING btree (tenant_id);


--
-- Name: oauth2_prov_token_f_996e8a_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_prov_token_f_996e8a_idx ON public.oauth2_provider_refreshtoken USING btree (token_family);


--
-- Name: oauth2_provider_accesstoken_application_id_b22886e1; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_provider_accesstoken_application_id_b22886e1 ON public.oauth2_provider_accesstoken USING btree (application_id);


--
-- Name: oauth2_provider_accesstoken_token_checksum_85319a26_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_provider_accesstoken_token_checksum_85319a26_like ON public.oauth2_provider_accesstoken USING btree (token_checksum varchar_pattern_ops);


--
-- Name: oauth2_provider_accesstoken_user_id_6e4c9a65; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_provider_accesstoken_user_id_6e4c9a65 ON public.oauth2_provider_accesstoken USING btree (user_id);


--
-- Name: oauth2_provider_devicegrant_client_id_229dd06d; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_provider_devicegrant_client_id_229dd06d ON public.oauth2_provider_devicegrant USING btree (client_id);


--
-- Name: oauth2_provider_devicegrant_client_id_229dd06d_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_provider_devicegrant_client_id_229dd06d_like ON public.oauth2_provider_devicegrant USING btree (client_id varchar_pattern_ops);


--
-- Name: oauth2_provider_devicegrant_user_id_1cec5156; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_provider_devicegrant_user_id_1cec5156 ON public.oauth2_provider_devicegrant USING btree (user_id);


--
-- Name: oauth2_provider_grant_application_id_81923564; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_provider_grant_application_id_81923564 ON public.oauth2_provider_grant USING btree (application_id);


--
-- Name: oauth2_provider_grant_code_49ab4ddf_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_provider_grant_code_49ab4ddf_like ON public.oauth2_provider_grant USING btree (code varchar_pattern_ops);


--
-- Name: oauth2_provider_grant_user_id_e8f62af8; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_provider_grant_user_id_e8f62af8 ON public.oauth2_provider_grant USING btree (user_id);


--
-- Name: oauth2_provider_idtoken_application_id_08c5ff4f; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_provider_idtoken_application_id_08c5ff4f ON public.oauth2_provider_idtoken USING btree (application_id);


--
-- Name: oauth2_provider_idtoken_user_id_dd512b59; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_provider_idtoken_user_id_dd512b59 ON public.oauth2_provider_idtoken USING btree (user_id);


--
-- Name: oauth2_provider_refreshtoken_application_id_2d1c311b; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_provider_refreshtoken_application_id_2d1c311b ON public.oauth2_provider_refreshtoken USING btree (application_id);


--
-- Name: oauth2_provider_refreshtoken_user_id_da837fce; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth2_provider_refreshtoken_user_id_da837fce ON public.oauth2_provider_refreshtoken USING btree (user_id);


--
-- Name: oauth_client_tenant_name_unique; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX oauth_client_tenant_name_unique ON public.adminops_oauthclient USING btree (tenant_id, name) WHERE (NOT ((status)::text = 'deleted'::text));


--
-- Name: source_rule_tenant_kind; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX source_rule_tenant_kind ON public.knowledge_sourcerule USING btree (tenant_id, kind);


--
-- Name: sync_config_tenant; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sync_config_tenant ON public.ingestion_syncconfiguration USING btree (tenant_id, platform, created_at DESC);


--
-- Name: sync_run_config_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sync_run_config_time ON public.ingestion_syncrun USING btree (configuration_id, queued_at DESC);


--
-- Name: sync_run_job; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sync_run_job ON public.ingestion_syncrun USING btree (tenant_id, job_id);


--
-- Name: sync_run_lease; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sync_run_lease ON public.ingestion_syncrun USING btree (status, lease_expires_at);


--
-- Name: sync_run_one_active_per_configuration; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX sync_run_one_active_per_configuration ON public.ingestion_syncrun USING btree (configuration_id) WHERE ((status)::text = ANY ((ARRAY['queued'::character varying, 'running'::character varying])::text[]));


--
-- Name: sync_run_tenant_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sync_run_tenant_time ON public.ingestion_syncrun USING btree (tenant_id, queued_at DESC);


--
-- Name: toolhub_approval_connection_id_84fdf8af; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX toolhub_approval_connection_id_84fdf8af ON public.toolhub_approval USING btree (connection_id);


--
-- Name: toolhub_approval_tenant_id_3deb6a2c; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX toolhub_approval_tenant_id_3deb6a2c ON public.toolhub_approval USING btree (tenant_id);


--
-- Name: toolhub_connection_tenant_id_5b3dc27f; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX toolhub_connection_tenant_id_5b3dc27f ON public.toolhub_connection USING btree (tenant_id);


--
-- Name: toolhub_idempotencyrecord_approval_id_e7501452; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX toolhub_idempotencyrecord_approval_id_e7501452 ON public.toolhub_idempotencyrecord USING btree (approval_id);


--
-- Name: toolhub_idempotencyrecord_tenant_id_6bab3abd; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX toolhub_idempotencyrecord_tenant_id_6bab3abd ON public.toolhub_idempotencyrecord USING btree (tenant_id);


--
-- Name: vault_credential_tenant_id_2f7ad3e5; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX vault_credential_tenant_id_2f7ad3e5 ON public.vault_credential USING btree (tenant_id);


--
-- Name: vault_credentialtally_tenant_id_3204f412; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX vault_credentialtally_tenant_id_3204f412 ON public.vault_credentialtally USING btree (tenant_id);


--
-- Name: vault_datakey_tenant_id_2206b982; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX vault_datakey_tenant_id_2206b982 ON public.vault_datakey USING btree (tenant_id);


--
-- Name: vault_dekrotation_tenant_id_7f3a1dbd; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX vault_dekrotation_tenant_id_7f3a1dbd ON public.vault_dekrotation USING btree (tenant_id);


--
-- Name: vault_masterkeyfingerprint_key_id_dc534e6c_like; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX vault_masterkeyfingerprint_key_id_dc534e6c_like ON public.vault_masterkeyfingerprint USING btree (key_id varchar_pattern_ops);


--
-- Name: vault_credential vault_credential_tally_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER vault_credential_tally_delete AFTER DELETE ON public.vault_credential FOR EACH ROW EXECUTE FUNCTION public.vault_credential_tally();


--
-- Name: vault_credential vault_credential_tally_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER vault_credential_tally_insert AFTER INSERT ON public.vault_credential FOR EACH ROW EXECUTE FUNCTION public.vault_credential_tally();


--
-- Name: vault_credential vault_credential_tally_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER vault_credential_tally_truncate AFTER TRUNCATE ON public.vault_credential FOR EACH STATEMENT EXECUTE FUNCTION public.vault_credential_tally_truncate();


--
-- Name: vault_credential vault_credential_tally_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER vault_credential_tally_update AFTER UPDATE OF id, tenant_id, status ON public.vault_credential FOR EACH ROW WHEN (((old.id IS DISTINCT FROM new.id) OR (old.tenant_id IS DISTINCT FROM new.tenant_id) OR ((old.status)::text IS DISTINCT FROM (new.status)::text))) EXECUTE FUNCTION public.vault_credential_tally();


--
-- Name: adminops_apikey adminops_apikey_created_by_id_da5ea8f0_fk_adminops_user_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_apikey
    ADD CONSTRAINT adminops_apikey_created_by_id_da5ea8f0_fk_adminops_user_id FOREIGN KEY (created_by_id) REFERENCES public.adminops_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_apikey adminops_apikey_rotated_by_id_a43381b1_fk_adminops_user_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_apikey
    ADD CONSTRAINT adminops_apikey_rotated_by_id_a43381b1_fk_adminops_user_id FOREIGN KEY (rotated_by_id) REFERENCES public.adminops_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_apikey adminops_apikey_tenant_id_6313b767_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_apikey
    ADD CONSTRAINT adminops_apikey_tenant_id_6313b767_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_apikey adminops_apikey_updated_by_id_3e7b1ac1_fk_adminops_user_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_apikey
    ADD CONSTRAINT adminops_apikey_updated_by_id_3e7b1ac1_fk_adminops_user_id FOREIGN KEY (updated_by_id) REFERENCES public.adminops_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_identityrealm adminops_identityrealm_tenant_id_2db90fff_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_identityrealm
    ADD CONSTRAINT adminops_identityrealm_tenant_id_2db90fff_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_membership adminops_membership_tenant_id_3dfab549_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_membership
    ADD CONSTRAINT adminops_membership_tenant_id_3dfab549_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_membership adminops_membership_user_id_4db08720_fk_adminops_user_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_membership
    ADD CONSTRAINT adminops_membership_user_id_4db08720_fk_adminops_user_id FOREIGN KEY (user_id) REFERENCES public.adminops_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_oauthclient adminops_oauthclient_tenant_id_73fd159c_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_oauthclient
    ADD CONSTRAINT adminops_oauthclient_tenant_id_73fd159c_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_oauthclient adminops_oauthclient_user_id_816c1062_fk_adminops_user_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_oauthclient
    ADD CONSTRAINT adminops_oauthclient_user_id_816c1062_fk_adminops_user_id FOREIGN KEY (user_id) REFERENCES public.adminops_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_serviceaccount adminops_serviceacco_oauth_client_id_4dbfdfcc_fk_adminops_; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_serviceaccount
    ADD CONSTRAINT adminops_serviceacco_oauth_client_id_4dbfdfcc_fk_adminops_ FOREIGN KEY (oauth_client_id) REFERENCES public.adminops_oauthclient(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_serviceaccount adminops_serviceacco_tenant_id_79385df3_fk_adminops_; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_serviceaccount
    ADD CONSTRAINT adminops_serviceacco_tenant_id_79385df3_fk_adminops_ FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_usagereport adminops_usagereport_tenant_id_f4db7085_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_usagereport
    ADD CONSTRAINT adminops_usagereport_tenant_id_f4db7085_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_user_groups adminops_user_groups_group_id_5d0733cb_fk_auth_group_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_user_groups
    ADD CONSTRAINT adminops_user_groups_group_id_5d0733cb_fk_auth_group_id FOREIGN KEY (group_id) REFERENCES public.auth_group(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_user_groups adminops_user_groups_user_id_557c3252_fk_adminops_user_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_user_groups
    ADD CONSTRAINT adminops_user_groups_user_id_557c3252_fk_adminops_user_id FOREIGN KEY (user_id) REFERENCES public.adminops_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_user_user_permissions adminops_user_user_p_permission_id_85f8831c_fk_auth_perm; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_user_user_permissions
    ADD CONSTRAINT adminops_user_user_p_permission_id_85f8831c_fk_auth_perm FOREIGN KEY (permission_id) REFERENCES public.auth_permission(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: adminops_user_user_permissions adminops_user_user_p_user_id_c5155b4b_fk_adminops_; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adminops_user_user_permissions
    ADD CONSTRAINT adminops_user_user_p_user_id_c5155b4b_fk_adminops_ FOREIGN KEY (user_id) REFERENCES public.adminops_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: auth_group_permissions auth_group_permissio_permission_id_84c5c92e_fk_auth_perm; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_group_permissions
    ADD CONSTRAINT auth_group_permissio_permission_id_84c5c92e_fk_auth_perm FOREIGN KEY (permission_id) REFERENCES public.auth_permission(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: auth_group_permissions auth_group_permissions_group_id_b120cbf9_fk_auth_group_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_group_permissions
    ADD CONSTRAINT auth_group_permissions_group_id_b120cbf9_fk_auth_group_id FOREIGN KEY (group_id) REFERENCES public.auth_group(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: auth_permission auth_permission_content_type_id_2f476e4b_fk_django_co; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_permission
    ADD CONSTRAINT auth_permission_content_type_id_2f476e4b_fk_django_co FOREIGN KEY (content_type_id) REFERENCES public.django_content_type(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: django_admin_log django_admin_log_content_type_id_c4bce8eb_fk_django_co; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_admin_log
    ADD CONSTRAINT django_admin_log_content_type_id_c4bce8eb_fk_django_co FOREIGN KEY (content_type_id) REFERENCES public.django_content_type(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: django_admin_log django_admin_log_user_id_c564eba6_fk_adminops_user_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.django_admin_log
    ADD CONSTRAINT django_admin_log_user_id_c564eba6_fk_adminops_user_id FOREIGN KEY (user_id) REFERENCES public.adminops_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: ingestion_syncconfiguration ingestion_syncconfig_tenant_id_1179d008_fk_adminops_; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ingestion_syncconfiguration
    ADD CONSTRAINT ingestion_syncconfig_tenant_id_1179d008_fk_adminops_ FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: ingestion_syncrun ingestion_syncrun_configuration_id_9363b724_fk_ingestion; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ingestion_syncrun
    ADD CONSTRAINT ingestion_syncrun_configuration_id_9363b724_fk_ingestion FOREIGN KEY (configuration_id) REFERENCES public.ingestion_syncconfiguration(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: ingestion_syncrun ingestion_syncrun_tenant_id_ddfa745b_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ingestion_syncrun
    ADD CONSTRAINT ingestion_syncrun_tenant_id_ddfa745b_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: ingestion_syncrunitem ingestion_syncrunitem_run_id_b8fc90a6_fk_ingestion_syncrun_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ingestion_syncrunitem
    ADD CONSTRAINT ingestion_syncrunitem_run_id_b8fc90a6_fk_ingestion_syncrun_id FOREIGN KEY (run_id) REFERENCES public.ingestion_syncrun(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: knowledge_chunk knowledge_chunk_document_id_9855d8fa_fk_knowledge_document_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge_chunk
    ADD CONSTRAINT knowledge_chunk_document_id_9855d8fa_fk_knowledge_document_id FOREIGN KEY (document_id) REFERENCES public.knowledge_document(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: knowledge_chunk knowledge_chunk_tenant_id_f8844a6e_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge_chunk
    ADD CONSTRAINT knowledge_chunk_tenant_id_f8844a6e_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: knowledge_document knowledge_document_tenant_id_6c2d18c7_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge_document
    ADD CONSTRAINT knowledge_document_tenant_id_6c2d18c7_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: knowledge_sourcerule knowledge_sourcerule_tenant_id_9037dfe3_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge_sourcerule
    ADD CONSTRAINT knowledge_sourcerule_tenant_id_9037dfe3_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: oauth2_provider_accesstoken oauth2_provider_acce_application_id_b22886e1_fk_adminops_; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_accesstoken
    ADD CONSTRAINT oauth2_provider_acce_application_id_b22886e1_fk_adminops_ FOREIGN KEY (application_id) REFERENCES public.adminops_oauthclient(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: oauth2_provider_accesstoken oauth2_provider_acce_id_token_id_85db651b_fk_oauth2_pr; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_accesstoken
    ADD CONSTRAINT oauth2_provider_acce_id_token_id_85db651b_fk_oauth2_pr FOREIGN KEY (id_token_id) REFERENCES public.oauth2_provider_idtoken(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: oauth2_provider_accesstoken oauth2_provider_acce_source_refresh_token_e66fbc72_fk_oauth2_pr; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_accesstoken
    ADD CONSTRAINT oauth2_provider_acce_source_refresh_token_e66fbc72_fk_oauth2_pr FOREIGN KEY (source_refresh_token_id) REFERENCES public.oauth2_provider_refreshtoken(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: oauth2_provider_accesstoken oauth2_provider_acce_user_id_6e4c9a65_fk_adminops_; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_accesstoken
    ADD CONSTRAINT oauth2_provider_acce_user_id_6e4c9a65_fk_adminops_ FOREIGN KEY (user_id) REFERENCES public.adminops_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: oauth2_provider_devicegrant oauth2_provider_devi_user_id_1cec5156_fk_adminops_; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_devicegrant
    ADD CONSTRAINT oauth2_provider_devi_user_id_1cec5156_fk_adminops_ FOREIGN KEY (user_id) REFERENCES public.adminops_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: oauth2_provider_grant oauth2_provider_gran_application_id_81923564_fk_adminops_; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_grant
    ADD CONSTRAINT oauth2_provider_gran_application_id_81923564_fk_adminops_ FOREIGN KEY (application_id) REFERENCES public.adminops_oauthclient(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: oauth2_provider_grant oauth2_provider_grant_user_id_e8f62af8_fk_adminops_user_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_grant
    ADD CONSTRAINT oauth2_provider_grant_user_id_e8f62af8_fk_adminops_user_id FOREIGN KEY (user_id) REFERENCES public.adminops_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: oauth2_provider_idtoken oauth2_provider_idto_application_id_08c5ff4f_fk_adminops_; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_idtoken
    ADD CONSTRAINT oauth2_provider_idto_application_id_08c5ff4f_fk_adminops_ FOREIGN KEY (application_id) REFERENCES public.adminops_oauthclient(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: oauth2_provider_idtoken oauth2_provider_idtoken_user_id_dd512b59_fk_adminops_user_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_idtoken
    ADD CONSTRAINT oauth2_provider_idtoken_user_id_dd512b59_fk_adminops_user_id FOREIGN KEY (user_id) REFERENCES public.adminops_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: oauth2_provider_refreshtoken oauth2_provider_refr_access_token_id_775e84e8_fk_oauth2_pr; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_refreshtoken
    ADD CONSTRAINT oauth2_provider_refr_access_token_id_775e84e8_fk_oauth2_pr FOREIGN KEY (access_token_id) REFERENCES public.oauth2_provider_accesstoken(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: oauth2_provider_refreshtoken oauth2_provider_refr_application_id_2d1c311b_fk_adminops_; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_refreshtoken
    ADD CONSTRAINT oauth2_provider_refr_application_id_2d1c311b_fk_adminops_ FOREIGN KEY (application_id) REFERENCES public.adminops_oauthclient(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: oauth2_provider_refreshtoken oauth2_provider_refr_user_id_da837fce_fk_adminops_; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth2_provider_refreshtoken
    ADD CONSTRAINT oauth2_provider_refr_user_id_da837fce_fk_adminops_ FOREIGN KEY (user_id) REFERENCES public.adminops_user(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: toolhub_approval toolhub_approval_connection_id_84fdf8af_fk_toolhub_c; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_approval
    ADD CONSTRAINT toolhub_approval_connection_id_84fdf8af_fk_toolhub_c FOREIGN KEY (connection_id) REFERENCES public.toolhub_connection(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: toolhub_approval toolhub_approval_tenant_id_3deb6a2c_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_approval
    ADD CONSTRAINT toolhub_approval_tenant_id_3deb6a2c_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: toolhub_approvalpolicy toolhub_approvalpolicy_tenant_id_23574abb_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_approvalpolicy
    ADD CONSTRAINT toolhub_approvalpolicy_tenant_id_23574abb_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: toolhub_connection toolhub_connection_tenant_id_5b3dc27f_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_connection
    ADD CONSTRAINT toolhub_connection_tenant_id_5b3dc27f_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: toolhub_executionrecord toolhub_executionrec_tenant_id_92f3c352_fk_adminops_; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_executionrecord
    ADD CONSTRAINT toolhub_executionrec_tenant_id_92f3c352_fk_adminops_ FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: toolhub_idempotencyrecord toolhub_idempotencyr_approval_id_e7501452_fk_toolhub_a; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_idempotencyrecord
    ADD CONSTRAINT toolhub_idempotencyr_approval_id_e7501452_fk_toolhub_a FOREIGN KEY (approval_id) REFERENCES public.toolhub_approval(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: toolhub_idempotencyrecord toolhub_idempotencyr_tenant_id_6bab3abd_fk_adminops_; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.toolhub_idempotencyrecord
    ADD CONSTRAINT toolhub_idempotencyr_tenant_id_6bab3abd_fk_adminops_ FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: vault_credential vault_credential_tenant_id_2f7ad3e5_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_credential
    ADD CONSTRAINT vault_credential_tenant_id_2f7ad3e5_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: vault_credentialtally vault_credentialtally_tenant_id_3204f412_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_credentialtally
    ADD CONSTRAINT vault_credentialtally_tenant_id_3204f412_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: vault_datakey vault_datakey_tenant_id_2206b982_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_datakey
    ADD CONSTRAINT vault_datakey_tenant_id_2206b982_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: vault_dekrotation vault_dekrotation_tenant_id_7f3a1dbd_fk_adminops_tenant_id; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_dekrotation
    ADD CONSTRAINT vault_dekrotation_tenant_id_7f3a1dbd_fk_adminops_tenant_id FOREIGN KEY (tenant_id) REFERENCES public.adminops_tenant(id) DEFERRABLE INITIALLY DEFERRED;


--
-- PostgreSQL database dump complete
--



-- Optional two-factor sign-in (TOTP). The secret and the recovery codes are sealed with
-- APP_KEY (key:rotate re-seals them); a setup in progress keeps its secret apart until the
-- first code confirms it. `totp_last_step` is the last accepted time step: a code is used once.

alter table users add column totp_secret_sealed text;
alter table users add column totp_pending_sealed text;
alter table users add column totp_enabled_at timestamptz;
alter table users add column totp_last_step bigint;
alter table users add column recovery_codes_sealed text;

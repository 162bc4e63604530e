<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * Lead push: creates or updates the WordPress user for the lead's email (any case). A lead does
 * not prove the visitor owns the address, so an existing user only gets empty fields filled, never
 * a new role, password, name or phone; an administrator's account is never touched.
 */
final class Leads
{
    public const META_PHONE = 'chat_agent_phone';
    public const META_LEAD_ID = 'chat_agent_lead_id';
    public const META_CONVERSATION_ID = 'chat_agent_conversation_id';

    /**
     * What to write for a lead on an existing user: only fields that are empty now (pure, tested).
     *
     * @param array<string, string> $current current values (first_name, last_name, phone, lead_id…)
     * @param array<string, string> $lead the lead's values under the same keys
     * @return array<string, string>
     */
    public static function fillEmpty(array $current, array $lead): array
    {
        $changes = [];
        foreach ($lead as $key => $value) {
            if ($value !== '' && trim((string) ($current[$key] ?? '')) === '') {
                $changes[$key] = $value;
            }
        }
        return $changes;
    }

    /** @return array{0: string, 1: string} first and last name from one name field */
    public static function splitName(string $name): array
    {
        $name = trim(preg_replace('/\s+/u', ' ', $name) ?? '');
        if ($name === '') {
            return ['', ''];
        }
        $space = strpos($name, ' ');
        return $space === false ? [$name, ''] : [substr($name, 0, $space), substr($name, $space + 1)];
    }

    /** @param array<string, mixed> $lead the validated body */
    public static function upsert(array $lead): int
    {
        $email = sanitize_email(trim((string) $lead['email']));
        if ($email === '' || !is_email($email)) {
            throw new \InvalidArgumentException('The lead email is not a valid address.');
        }
        [$first, $last] = self::splitName((string) $lead['name']);
        $values = [
            'first_name' => $first,
            'last_name' => $last,
            self::META_PHONE => trim((string) $lead['phone']),
            self::META_LEAD_ID => (string) $lead['service_lead_id'],
            self::META_CONVERSATION_ID => (string) $lead['conversation_id'],
        ];
        if (Options::commerceActive()) {
            $values['billing_phone'] = $values[self::META_PHONE];
        }
        $user = self::findByEmail($email);
        if ($user === null) {
            return self::create($email, $values);
        }
        if (user_can($user, 'manage_options')) {
            return (int) $user->ID;
        }
        $current = [];
        foreach (array_keys($values) as $key) {
            $current[$key] = (string) get_user_meta($user->ID, $key, true);
        }
        foreach (self::fillEmpty($current, $values) as $key => $value) {
            update_user_meta($user->ID, $key, $value);
        }
        return (int) $user->ID;
    }

    private static function findByEmail(string $email): ?\WP_User
    {
        $user = get_user_by('email', $email);
        if ($user instanceof \WP_User) {
            return $user;
        }
        global $wpdb;
        $id = $wpdb->get_var($wpdb->prepare(
            "SELECT ID FROM {$wpdb->users} WHERE LOWER(user_email) = %s LIMIT 1",
            strtolower($email)
        ));
        $user = $id !== null ? get_user_by('id', (int) $id) : false;
        return $user instanceof \WP_User ? $user : null;
    }

    /** @param array<string, string> $values */
    private static function create(string $email, array $values): int
    {
        $base = sanitize_user((string) strstr($email, '@', true), true);
        $login = $base !== '' ? $base : 'lead';
        for ($n = 2; username_exists($login); $n++) {
            $login = $base . $n;
        }
        $name = trim($values['first_name'] . ' ' . $values['last_name']);
        $id = wp_insert_user([
            'user_login' => $login,
            'user_email' => $email,
            'user_pass' => wp_generate_password(32, true, true),
            'role' => Options::commerceActive() ? 'customer' : 'subscriber',
            'first_name' => $values['first_name'],
            'last_name' => $values['last_name'],
            'display_name' => $name !== '' ? $name : $login,
        ]);
        if (is_wp_error($id)) {
            throw new \RuntimeException($id->get_error_message());
        }
        foreach ([self::META_PHONE, self::META_LEAD_ID, self::META_CONVERSATION_ID, 'billing_phone'] as $key) {
            if (isset($values[$key]) && $values[$key] !== '') {
                update_user_meta($id, $key, $values[$key]);
            }
        }
        return (int) $id;
    }
}

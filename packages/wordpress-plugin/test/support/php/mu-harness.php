<?php

/**
 * Plugin Name: Test harness (loopback WordPress)
 * Description: Test-only settings of the harness WordPress: no mail leaves the machine, and
 * outbound HTTP may reach the loopback service on its random port.
 */

// No mail server here: wp_mail() reports success without sending.
add_filter('pre_wp_mail', '__return_true');

// The service under test listens on a random loopback port (a real site's service is on 443).
add_filter('http_allowed_safe_ports', static function ($ports) {
    $port = (int) getenv('CHAT_AGENT_TEST_SERVICE_PORT');
    if ($port > 0 && is_array($ports)) {
        $ports[] = $port;
    }
    return $ports;
});

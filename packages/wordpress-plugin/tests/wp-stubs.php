<?php

/**
 * The few WordPress functions ServiceClient needs, for its unit test: wp_remote_post answers
 * from a queue the test fills ($GLOBALS['chat_agent_test_http']) and records each request.
 * Loaded by bootstrap.php only; WordPress itself is never loaded by PHPUnit.
 */

declare(strict_types=1);

// phpcs:disable PSR1.Files.SideEffects

const CHAT_AGENT_VERSION = '0.1.0-test';

class WP_Error
{
    public function __construct(private string $code = '', private string $message = '')
    {
    }

    public function get_error_message(): string
    {
        return $this->message;
    }
}

function __($text, $domain = 'default')
{
    return $text;
}

function is_wp_error($thing): bool
{
    return $thing instanceof WP_Error;
}

function wp_json_encode($data, $flags = 0)
{
    return json_encode($data, $flags);
}

function wp_parse_url($url, $component = -1)
{
    return parse_url($url, $component);
}

function untrailingslashit($text)
{
    return rtrim((string) $text, '/\\');
}

function home_url($path = '')
{
    return 'https://shop.example.com' . $path;
}

function get_bloginfo($show = '')
{
    return $show === 'version' ? '6.1.9' : '';
}

function wp_remote_post($url, $args = [])
{
    $GLOBALS['chat_agent_test_requests'][] = ['url' => $url, 'args' => $args];
    $next = array_shift($GLOBALS['chat_agent_test_http']);
    return $next ?? new WP_Error('http_request_failed', 'no answer queued');
}

function wp_remote_retrieve_response_code($response)
{
    return is_array($response) ? $response['response']['code'] : '';
}

function wp_remote_retrieve_body($response)
{
    return is_array($response) ? $response['body'] : '';
}

function wp_remote_retrieve_header($response, $header)
{
    return is_array($response) ? ($response['headers'][strtolower($header)] ?? '') : '';
}

/** Options live in $GLOBALS['chat_agent_test_options'] for the test that sets them. */
function get_option($name, $default = false)
{
    return $GLOBALS['chat_agent_test_options'][$name] ?? $default;
}

function update_option($name, $value, $autoload = null)
{
    $GLOBALS['chat_agent_test_options'][$name] = $value;
    return true;
}

function delete_option($name)
{
    unset($GLOBALS['chat_agent_test_options'][$name]);
    return true;
}

/* Chat agent settings page: Test connection, Sync now and the progress poll (no build step). */
(function () {
  'use strict';
  var config = window.chatAgentAdmin;
  if (!config) {
    return;
  }
  var $ = function (id) {
    return document.getElementById(id);
  };
  var pollTimer = null;

  function post(action, fields) {
    var body = new URLSearchParams();
    body.set('action', action);
    body.set('nonce', config.nonce);
    Object.keys(fields || {}).forEach(function (key) {
      body.set(key, fields[key]);
    });
    return fetch(config.ajaxUrl, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    }).then(function (response) {
      return response.json().catch(function () {
        return { ok: false, message: config.i18n.requestFailed };
      });
    });
  }

  function setText(element, text, isError) {
    if (!element) {
      return;
    }
    element.textContent = text;
    element.classList.toggle('is-error', !!isError);
    element.classList.toggle('is-ok', !isError);
  }

  function fillAgents(agents, selected) {
    var select = $('chat-agent-agent');
    if (!select || !agents) {
      return;
    }
    var current = selected || select.value;
    while (select.options.length > 0) {
      select.remove(0);
    }
    select.add(new Option(config.i18n.chooseAgent, ''));
    agents.forEach(function (agent) {
      var option = new Option(agent.name || agent.id, agent.id);
      option.selected = agent.id === current;
      select.add(option);
    });
  }

  function showStatus(status) {
    var bar = $('chat-agent-sync-progress');
    if (bar && typeof status.percent === 'number') {
      bar.setAttribute('data-status', status.status || 'idle');
      bar.setAttribute('aria-valuenow', String(status.percent));
      var fill = bar.querySelector('.chat-agent-progress-bar');
      if (fill) {
        fill.style.width = status.percent + '%';
      }
    }
    setText($('chat-agent-sync-status'), status.message || '', status.status === 'failed' || status.ok === false);
    var list = $('chat-agent-sync-failures');
    if (list && Array.isArray(status.failures)) {
      list.textContent = '';
      var none = $('chat-agent-sync-no-failures');
      if (none) {
        none.hidden = status.failures.length > 0;
      }
      status.failures.forEach(function (failure) {
        var item = document.createElement('li');
        var time = document.createElement('time');
        time.textContent = failure.time;
        var what = document.createElement('strong');
        what.textContent = failure.what;
        item.appendChild(time);
        item.appendChild(document.createTextNode(' '));
        item.appendChild(what);
        item.appendChild(document.createTextNode(': ' + failure.message));
        list.appendChild(item);
      });
    }
    if (status.status === 'running') {
      schedulePoll();
    }
  }

  function schedulePoll() {
    if (pollTimer) {
      return;
    }
    pollTimer = window.setTimeout(function () {
      pollTimer = null;
      post('chat_agent_sync_status').then(showStatus, function () {
        setText($('chat-agent-sync-status'), config.i18n.requestFailed, true);
      });
    }, 1500);
  }

  var testButton = $('chat-agent-test-connection');
  if (testButton) {
    testButton.addEventListener('click', function () {
      var result = $('chat-agent-connection-result');
      setText(result, config.i18n.testing, false);
      testButton.disabled = true;
      post('chat_agent_test_connection', {
        service_url: ($('chat-agent-service-url') || {}).value || '',
        api_token: ($('chat-agent-api-token') || {}).value || '',
      })
        .then(
          function (answer) {
            setText(result, answer.message || config.i18n.requestFailed, !answer.ok);
            if (answer.ok) {
              fillAgents(answer.agents, answer.agent_id);
            }
          },
          function () {
            setText(result, config.i18n.requestFailed, true);
          },
        )
        .then(function () {
          testButton.disabled = false;
        });
    });
  }

  var syncButton = $('chat-agent-sync-now');
  if (syncButton) {
    syncButton.addEventListener('click', function () {
      setText($('chat-agent-sync-status'), config.i18n.starting, false);
      var progress = $('chat-agent-sync-progress');
      if (progress) {
        progress.setAttribute('aria-valuenow', '0');
        progress.setAttribute('data-status', 'running');
        var fill = progress.querySelector('.chat-agent-progress-bar');
        if (fill) {
          fill.style.width = '0%';
        }
      }
      post('chat_agent_sync_now').then(showStatus, function () {
        setText($('chat-agent-sync-status'), config.i18n.requestFailed, true);
      });
    });
  }

  var bar = $('chat-agent-sync-progress');
  if (bar && bar.getAttribute('data-status') === 'running') {
    schedulePoll();
  }
})();

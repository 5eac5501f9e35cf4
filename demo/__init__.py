"""The demo: a synthetic street-scene generator (`demo.synthetic`, free of Django) and the set-up that
`make run` loads (`demo.services`, `manage.py demo_setup`). It sits above every other app: it uses
their services to build what a newcomer sees, and nothing imports it."""

"""The version document at ``/``."""
from placement import microversion
from placement import util
from placement import wsgi_wrapper


def _render_versions():
    return {'versions': [{
        'id': 'v%s' % (microversion.MIN_VERSION,),
        'max_version': str(microversion.MAX_VERSION),
        'min_version': str(microversion.MIN_VERSION),
        # A relative link to this very URL, whatever it is mounted under.
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': ''}],
    }]}


@wsgi_wrapper.PlacementWsgify
def home(req):
    """GET /: no authentication, no policy, and (as the reference
    service) JSON whatever the Accept header says."""
    return util.json_response(req, util.version(req), _render_versions())
